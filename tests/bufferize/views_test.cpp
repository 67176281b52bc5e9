// The placement plan (bufferize/internal/views.h) on hand-built graphs and calls:
// which producers write straight into a Concat slice or a run-time If's output, and
// the in-place chains that follow a placed value back through its producer.
#include <gtest/gtest.h>

#include <map>

#include "../support/graph_builder.h"
#include "bufferize/branch_guards.h"
#include "bufferize/internal/views.h"

namespace kiln::bufferize_internal {
namespace {

using G = test_support::GraphBuilder;
using Calls = std::map<const Node*, KernelCall>;

Calls plain_calls(const Graph& g) {
  Calls c;
  for (const auto& n : g.nodes) c[n.get()].call = n->op_type;
  return c;
}

TEST(PlanPlacements, ConcatInputsComputedIntoTheirSlices) {
  G t;
  Value* x = t.input("x", {4});
  Value* a = t.val("a", {4});
  Value* b = t.val("b", {4});
  Value* y = t.val("y", {12});
  t.op("Relu", "relu", {x}, {a});
  t.op("Neg", "neg", {x}, {b});
  Node* cat = t.op("Concat", "cat", {a, b, x}, {y});
  t.output(y);
  Calls calls = plain_calls(t.g);
  calls[cat].input_offsets = {0, 16, 32};
  Placements p = plan_placements(t.g, calls, branch_guards(t.g), {});
  ASSERT_EQ(p.into.size(), 2u) << "the graph input x is copied, not placed";
  EXPECT_EQ(p.into.at(a), std::make_pair(static_cast<const Node*>(cat), uint64_t(0)));
  EXPECT_EQ(p.into.at(b), std::make_pair(static_cast<const Node*>(cat), uint64_t(16)));
  EXPECT_TRUE(p.select_side.empty());

  BufferizeOptions no_alias;
  no_alias.alias_views = false;
  EXPECT_TRUE(plan_placements(t.g, calls, branch_guards(t.g), no_alias).into.empty());
}

TEST(PlanPlacements, AViewIsNotPlaced) {
  G t;
  Value* x = t.input("x", {4});
  Value* a = t.val("a", {4});
  Value* v = t.val("v", {4});
  Value* y = t.val("y", {8});
  t.op("Relu", "relu", {x}, {a});
  Node* view = t.op("Identity", "view", {a}, {v});
  Node* cat = t.op("Concat", "cat", {v, a}, {y});
  t.output(y);
  Calls calls = plain_calls(t.g);
  calls[view].alias_input = 0;
  calls[cat].input_offsets = {0, 16};
  Placements p = plan_placements(t.g, calls, branch_guards(t.g), {});
  EXPECT_EQ(p.into.count(v), 0u);
  EXPECT_EQ(p.into.count(a), 1u);
}

// y = KilnSelect(cond, Sigmoid(Relu(x)), Neg(x)): each side's final value goes into
// y's buffer, and Relu too (Sigmoid may run in place over it) with the same side.
TEST(PlanPlacements, RunTimeIfSidesWriteIntoTheIfsOutput) {
  G t;
  Value* x = t.input("x", {4});
  Value* cond = t.val("cond", {}, DType::Bool);
  cond->is_graph_input = true;
  t.g.inputs.push_back(cond);
  Value* r = t.val("r", {4});
  Value* a = t.val("a", {4});
  Value* b = t.val("b", {4});
  Value* y = t.val("y", {4});
  t.op("Relu", "relu", {x}, {r});
  Node* sig = t.op("Sigmoid", "sigmoid", {r}, {a});
  t.op("Neg", "neg", {x}, {b});
  Node* sel = t.op("KilnSelect", "select", {cond, a, b}, {y});
  t.output(y);
  Calls calls = plain_calls(t.g);
  calls[sig].in_place_inputs = {0};
  const auto guards = branch_guards(t.g);
  ASSERT_TRUE(is_runtime_select(*sel));
  Placements p = plan_placements(t.g, calls, guards, {});
  for (const Value* v : {a, b, r}) {
    ASSERT_EQ(p.into.count(v), 1u) << v->name;
    EXPECT_EQ(p.into.at(v).first, sel);
    EXPECT_EQ(p.into.at(v).second, 0u);
  }
  EXPECT_EQ(p.select_side.at(a), std::make_pair(static_cast<const Value*>(cond), true));
  EXPECT_EQ(p.select_side.at(r), std::make_pair(static_cast<const Value*>(cond), true));
  EXPECT_EQ(p.select_side.at(b), std::make_pair(static_cast<const Value*>(cond), false));

  BufferizeOptions no_in_place;
  no_in_place.in_place = false;
  EXPECT_EQ(plan_placements(t.g, calls, guards, no_in_place).into.count(r), 0u) << "no in-place chain";
}

TEST(PlanPlacements, AValueTheOtherSideAlsoNeedsIsNotPlaced) {
  G t;
  Value* x = t.input("x", {4});
  Value* cond = t.val("cond", {}, DType::Bool);
  cond->is_graph_input = true;
  t.g.inputs.push_back(cond);
  Value* a = t.val("a", {4});
  Value* b = t.val("b", {4});
  Value* y = t.val("y", {4});
  t.op("Relu", "relu", {x}, {a});
  t.op("Neg", "neg", {a}, {b});  // the else side reads the then side's value
  t.op("KilnSelect", "select", {cond, a, b}, {y});
  t.output(y);
  Calls calls = plain_calls(t.g);
  Placements p = plan_placements(t.g, calls, branch_guards(t.g), {});
  EXPECT_EQ(p.into.count(a), 0u) << "Relu runs on both sides: it would clobber the else value";
  EXPECT_EQ(p.into.count(b), 1u);
}

}  // namespace
}  // namespace kiln::bufferize_internal
