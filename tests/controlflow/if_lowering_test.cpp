// If lowering (controlflow/if_lowering.cpp) on hand-built IR graphs: a constant
// condition takes its branch alone, a run-time one waits until the graph has
// settled and then runs both branches joined by one KilnSelect per output, the
// branches must agree on static types, and a run-time If nested in a Loop body is
// kept as an If node of the enclosing graph (controlflow/body_import.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "../support/expect_contains.h"
#include "controlflow/control_flow.h"
#include "util/error.h"

namespace kiln {
namespace {

// A branch reading the enclosing value "x" (a capture) and returning op(x) as
// `out`, of shape `shape`.
GraphPtr branch(const std::string& op, const std::string& out, const Shape& shape) {
  auto g = std::make_shared<Graph>();
  g->name = out + "_branch";
  g->opset = 13;
  Value* x = g->add_value("x", DType::Float32, {4});
  g->captures.push_back(x);
  Value* y = g->add_value(out, DType::Float32, shape);
  g->add_node(op, out + "_node", {x}, {y});
  g->outputs.push_back(y);
  return g;
}

// y = If(cond, Relu(x), Neg(x)); cond a graph input, or a constant when `known`.
struct IfGraph {
  Graph g;
  Value* x = nullptr;
  Value* cond = nullptr;
  Value* y = nullptr;
  Node* node = nullptr;

  explicit IfGraph(int known = -1, Shape else_shape = {4}) {
    g.opset = 13;
    x = g.add_value("x", DType::Float32, {4});
    x->is_graph_input = true;
    g.inputs.push_back(x);
    cond = g.add_value("cond", DType::Bool, {});
    if (known >= 0) {
      cond->constant = Constant::from_bytes(DType::Bool, {}, {uint8_t(known)});
    } else {
      cond->is_graph_input = true;
      g.inputs.push_back(cond);
    }
    y = g.add_value("y", DType::Float32, {4});
    y->is_graph_output = true;
    g.outputs.push_back(y);
    node = g.add_node("If", "choose", {cond, x}, {y});
    node->attrs["then_branch"] = branch("Relu", "then_out", {4});
    node->attrs["else_branch"] = branch("Neg", "else_out", else_shape);
    node->attrs["captured"] = std::vector<std::string>{"x"};
  }
};

std::map<std::string, int> op_counts(const Graph& g) {
  std::map<std::string, int> n;
  for (const auto& node : g.nodes) ++n[node->op_type];
  return n;
}

TEST(IfLowering, ConstantConditionTakesItsBranchAlone) {
  for (int known : {0, 1}) {
    IfGraph t(known);
    EXPECT_EQ(lower_control_flow(t.g, false, {}), 1u);
    auto ops = op_counts(t.g);
    EXPECT_EQ(ops.count("If"), 0u);
    EXPECT_EQ(ops["Relu"], known);
    EXPECT_EQ(ops["Neg"], 1 - known);
    // The If's output keeps its name and is an Identity of the branch's result.
    ASSERT_NE(t.y->producer, nullptr);
    EXPECT_EQ(t.y->producer->op_type, "Identity");
    EXPECT_EQ(t.y->producer->input(0)->producer->op_type, known ? "Relu" : "Neg");
    EXPECT_EQ(t.y->producer->input(0)->producer->input(0), t.x);
  }
}

TEST(IfLowering, ConstantConditionSeenThroughIdentity) {
  IfGraph t(1);
  // cond -> Identity -> the If: still known.
  Value* seen = t.g.add_value("cond_id", DType::Bool, {});
  Node* id = t.g.add_node("Identity", "cond_identity", {t.cond}, {seen});
  t.g.nodes.splice(t.g.nodes.begin(), t.g.nodes, std::prev(t.g.nodes.end()));  // before the If
  t.node->inputs[0] = seen;
  seen->users.push_back(t.node);
  t.cond->users.erase(std::find(t.cond->users.begin(), t.cond->users.end(), t.node));
  ASSERT_EQ(id->outputs[0], seen);
  EXPECT_EQ(lower_control_flow(t.g, false, {}), 1u);
  EXPECT_EQ(op_counts(t.g)["Relu"], 1);
  EXPECT_EQ(op_counts(t.g).count("Neg"), 0u);
}

TEST(IfLowering, RunTimeConditionWaitsUntilTheGraphHasSettled) {
  IfGraph t;
  EXPECT_EQ(lower_control_flow(t.g, false, {}), 0u);
  EXPECT_EQ(op_counts(t.g)["If"], 1);
  // Settled: both branches run, one KilnSelect joins them into y.
  EXPECT_EQ(lower_control_flow(t.g, true, {}), 1u);
  auto ops = op_counts(t.g);
  EXPECT_EQ(ops.count("If"), 0u);
  EXPECT_EQ(ops["Relu"], 1);
  EXPECT_EQ(ops["Neg"], 1);
  ASSERT_NE(t.y->producer, nullptr);
  const Node* sel = t.y->producer;
  EXPECT_EQ(sel->op_type, "KilnSelect");
  ASSERT_EQ(sel->inputs.size(), 3u);
  EXPECT_EQ(sel->inputs[0], t.cond);
  EXPECT_EQ(sel->inputs[1]->producer->op_type, "Relu");
  EXPECT_EQ(sel->inputs[2]->producer->op_type, "Neg");
  // The schedule still computes every input before its user.
  std::set<const Value*> ready(t.g.inputs.begin(), t.g.inputs.end());
  for (const auto& n : t.g.nodes) {
    for (const Value* in : n->inputs) EXPECT_TRUE(!in || in->constant || ready.count(in)) << n->describe();
    for (const Value* o : n->outputs) ready.insert(o);
  }
}

TEST(IfLowering, BranchesOfDifferentShapesAreRefusedNamingTheIf) {
  IfGraph t(-1, {2, 2});
  try {
    lower_control_flow(t.g, true, {});
    ADD_FAILURE() << "expected a CompileError";
  } catch (const CompileError& e) {
    EXPECT_CONTAINS(std::string(e.what()), "If 'choose': output 0 is [4] in then_branch and [2,2] in else_branch");
  }
}

// A Loop (a C loop) whose body holds a run-time If on a body value: the If is not
// decided while the graph may still fold, so it stays an If node of the enclosing
// graph, reading the body instance's values; once settled it is lowered there.
TEST(IfLowering, RunTimeIfInALoopBodyIsKeptAsANodeUntilSettled) {
  Graph g;
  g.opset = 13;
  Value* x0 = g.add_value("x0", DType::Float32, {4});
  x0->is_graph_input = true;
  g.inputs.push_back(x0);
  Value* m = g.add_value("M", DType::Int64, {});
  m->constant = Constant::from_int64s({}, {3});
  Value* x = g.add_value("x", DType::Float32, {4});
  x->is_graph_output = true;
  g.outputs.push_back(x);

  auto body = std::make_shared<Graph>();
  body->name = "body";
  body->opset = 13;
  Value* i = body->add_value("i", DType::Int64, {});
  Value* cond_in = body->add_value("cond_in", DType::Bool, {});
  Value* bx = body->add_value("x", DType::Float32, {4});  // the inner If captures it by this name
  body->inputs = {i, cond_in, bx};
  Value* zero = body->add_value("zero", DType::Float32, {});
  zero->constant = Constant::from_floats({}, {0.f});
  Value* sum = body->add_value("sum", DType::Float32, {});
  body->add_node("ReduceSum", "sum", {bx}, {sum})->attrs["keepdims"] = int64_t(0);
  Value* positive = body->add_value("positive", DType::Bool, {});
  body->add_node("Greater", "positive", {sum, zero}, {positive});
  Value* next = body->add_value("next", DType::Float32, {4});
  Node* inner = body->add_node("If", "inner", {positive, bx}, {next});
  inner->attrs["then_branch"] = branch("Relu", "then_out", {4});
  inner->attrs["else_branch"] = branch("Neg", "else_out", {4});
  inner->attrs["captured"] = std::vector<std::string>{"x"};
  Value* cond_out = body->add_value("cond_out", DType::Bool, {});
  body->add_node("Identity", "keep_going", {cond_in}, {cond_out});
  body->outputs = {cond_out, next};

  Node* loop = g.add_node("Loop", "loop", {m, nullptr, x0}, {x});
  loop->attrs["body"] = body;

  EXPECT_EQ(lower_control_flow(g, false, {}), 1u);  // the Loop
  auto ops = op_counts(g);
  EXPECT_EQ(ops["KilnLoopBegin"], 1);
  EXPECT_EQ(ops["KilnLoopEnd"], 1);
  ASSERT_EQ(ops["If"], 1) << "the inner If waits as a node of the graph";
  const Node* kept = nullptr;
  for (const auto& n : g.nodes)
    if (n->op_type == "If") kept = n.get();
  ASSERT_NE(kept, nullptr);
  EXPECT_EQ(kept->inputs[0]->producer->op_type, "Greater");
  EXPECT_EQ(kept->inputs[1]->producer->op_type, "KilnLoopBegin") << "captures the body instance's carried value";
  EXPECT_TRUE(kept->has_attr("then_branch"));

  EXPECT_EQ(lower_control_flow(g, true, {}), 1u);  // now the If
  ops = op_counts(g);
  EXPECT_EQ(ops.count("If"), 0u);
  EXPECT_EQ(ops["KilnSelect"], 1);
  EXPECT_EQ(g.nodes.back()->op_type, "KilnLoopEnd") << "the branches stay inside the region";
}

}  // namespace
}  // namespace kiln
