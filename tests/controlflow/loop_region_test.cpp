// The choice between a Loop as a C loop (a region, controlflow/loop_region.cpp) and
// an unrolled Loop (controlflow/loop_unroll.cpp), on hand-built IR graphs: the note
// the compile summary prints says which and why.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "../support/expect_contains.h"
#include "controlflow/control_flow.h"
#include "util/error.h"

namespace kiln {
namespace {

// x = Loop(M, , x0) with body (i, cond_in, x) -> (cond_in, x + w); w captured from
// the graph.
struct LoopGraph {
  Graph g;
  Node* loop = nullptr;
  std::shared_ptr<Graph> body = std::make_shared<Graph>();

  explicit LoopGraph(int64_t trips) {
    g.opset = 13;
    Value* x0 = g.add_value("x0", DType::Float32, {2});
    x0->is_graph_input = true;
    g.inputs.push_back(x0);
    Value* w = g.add_value("w", DType::Float32, {2});
    w->constant = Constant::from_floats({2}, {1.f, 2.f});
    Value* m = g.add_value("M", DType::Int64, {});
    m->constant = Constant::from_int64s({}, {trips});
    Value* x = g.add_value("x", DType::Float32, {2});
    x->is_graph_output = true;
    g.outputs.push_back(x);

    body->name = "body";
    body->opset = 13;
    Value* i = body->add_value("i", DType::Int64, {});
    Value* cond_in = body->add_value("cond_in", DType::Bool, {});
    Value* bx = body->add_value("x_in", DType::Float32, {2});
    body->inputs = {i, cond_in, bx};
    Value* bw = body->add_value("w", DType::Float32, {2});
    body->captures.push_back(bw);
    Value* next = body->add_value("x_out", DType::Float32, {2});
    body->add_node("Add", "add", {bx, bw}, {next});
    Value* cond_out = body->add_value("cond_out", DType::Bool, {});
    body->add_node("Identity", "go_on", {cond_in}, {cond_out});
    body->outputs = {cond_out, next};

    loop = g.add_node("Loop", "my_loop", {m, nullptr, x0, w}, {x});
    loop->attrs["body"] = GraphPtr(body);
    loop->attrs["captured"] = std::vector<std::string>{"w"};
  }

  std::map<std::string, int> ops() const {
    std::map<std::string, int> n;
    for (const auto& node : g.nodes) ++n[node->op_type];
    return n;
  }
  std::string note() const { return g.lowering_notes.size() == 1 ? g.lowering_notes[0] : "(not one note)"; }
};

TEST(LoopRegionDecision, ALoopOfSeveralIterationsIsACLoop) {
  LoopGraph t(7);
  EXPECT_EQ(lower_control_flow(t.g, false, {}), 1u);
  EXPECT_EQ(t.ops()["KilnLoopBegin"], 1);
  EXPECT_EQ(t.ops()["Add"], 1);
  EXPECT_CONTAINS(t.note(), "Loop 'my_loop': a C loop, its body (2 nodes) planned once, 7 iterations at most");
}

TEST(LoopRegionDecision, ALoopThatRunsAtMostOnceIsUnrolled) {
  LoopGraph t(1);
  lower_control_flow(t.g, false, {});
  EXPECT_EQ(t.ops().count("KilnLoopBegin"), 0u);
  EXPECT_EQ(t.ops()["Add"], 1);
  EXPECT_CONTAINS(t.note(), "Loop 'my_loop': unrolled, 1 step(s) (it runs at most once)");
}

TEST(LoopRegionDecision, UnrollingOnRequest) {
  LoopGraph t(3);
  ControlFlowOptions o;
  o.unroll_loops = true;
  lower_control_flow(t.g, false, o);
  EXPECT_EQ(t.ops()["Add"], 3);
  EXPECT_CONTAINS(t.note(), "unrolled, 3 step(s) (unrolling requested)");
}

TEST(LoopRegionDecision, AnOpWithoutARunTimeFormOnLoopValuesIsUnrolled) {
  LoopGraph t(3);
  ControlFlowOptions o;
  o.runtime_refusal = [](const Node& n) { return n.op_type == "Add" ? std::string("no kernel for that") : ""; };
  lower_control_flow(t.g, false, o);
  EXPECT_EQ(t.ops().count("KilnLoopBegin"), 0u);
  EXPECT_EQ(t.ops()["Add"], 3);
  EXPECT_CONTAINS(t.note(), "has no run-time form for values computed in the loop (no kernel for that)");
}

TEST(LoopRegionDecision, ABodyWithSequenceOpsIsUnrolled) {
  LoopGraph t(2);
  Value* s = t.body->add_value("s", DType::Float32, {});
  s->is_sequence = true;
  s->shape_known = false;
  t.body->add_node("SequenceEmpty", "empty", {}, {s});
  lower_control_flow(t.g, false, {});
  EXPECT_CONTAINS(t.note(), "its body holds SequenceEmpty 'empty', which Kiln resolves at compile time");
}

TEST(LoopRegionDecision, ACarriedValueChangingShapeIsRefusedNamingTheLoop) {
  LoopGraph t(3);
  // The body returns a [1,2] reshape of x: in a region, the carried buffer cannot change shape.
  Value* shape = t.body->add_value("shape", DType::Int64, {2});
  shape->constant = Constant::from_int64s({2}, {1, 2});
  Value* reshaped = t.body->add_value("reshaped", DType::Float32, {1, 2});
  t.body->add_node("Reshape", "reshape", {t.body->outputs[1], shape}, {reshaped});
  t.body->outputs[1] = reshaped;
  try {
    lower_control_flow(t.g, false, {});
    ADD_FAILURE() << "expected a CompileError";
  } catch (const CompileError& e) {
    EXPECT_CONTAINS(std::string(e.what()), "Loop 'my_loop': loop-carried value 0 changes type from [2] to [1,2]");
  }
}

}  // namespace
}  // namespace kiln
