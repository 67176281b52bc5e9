// What the control-flow lowering knows at compile time (controlflow/compile_time.h):
// bools seen through Identity, values computed from constants by evaluation (the
// graph left unchanged), a Loop body that never stops early, and whether a Loop's
// trip count and condition are settled enough to lower it now.
#include <gtest/gtest.h>

#include <deque>
#include <memory>

#include "controlflow/compile_time.h"

namespace kiln::controlflow {
namespace {

Value* bool_const(Graph& g, const std::string& name, std::vector<uint8_t> bytes) {
  Value* v = g.add_value(name, DType::Bool, {int64_t(bytes.size())});
  v->constant = Constant::from_bytes(DType::Bool, v->shape, bytes);
  return v;
}

Value* i64_scalar(Graph& g, const std::string& name, int64_t x) {
  Value* v = g.add_value(name, DType::Int64, {});
  v->constant = Constant::from_int64s({}, {x});
  return v;
}

TEST(CompileTime, KnownBoolSeesThroughIdentity) {
  Graph g;
  Value* t = bool_const(g, "t", {1, 1});
  Value* f = bool_const(g, "f", {0});
  Value* mixed = bool_const(g, "mixed", {1, 0});
  EXPECT_EQ(known_bool(t), 1);
  EXPECT_EQ(known_bool(f), 0);
  EXPECT_EQ(known_bool(mixed), -1);
  Value* id = g.add_value("id", DType::Bool, {2});
  g.add_node("Identity", "id", {t}, {id});
  Value* id2 = g.add_value("id2", DType::Bool, {2});
  g.add_node("Identity", "id2", {id}, {id2});
  EXPECT_EQ(known_bool(id2), 1);
  Value* runtime = g.add_value("runtime", DType::Bool, {});
  runtime->is_graph_input = true;
  EXPECT_EQ(known_bool(runtime), -1);
  Value* n = g.add_value("n", DType::Bool, {2});
  g.add_node("Not", "not", {t}, {n});
  EXPECT_EQ(known_bool(n), -1) << "only Identity is seen through; Not is folding's job";
}

TEST(CompileTimeValue, EvaluatesAChainOfConstantsWithoutChangingTheGraph) {
  Graph g;
  Value* a = i64_scalar(g, "a", 7);
  Value* b = i64_scalar(g, "b", 5);
  Value* sum = g.add_value("sum", DType::Int64, {});
  g.add_node("Add", "add", {a, b}, {sum});
  Value* twice = g.add_value("twice", DType::Int64, {});
  g.add_node("Add", "twice", {sum, sum}, {twice});
  std::deque<Value> tmp;
  ConstantPtr c = compile_time_value(twice, 0, &tmp);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->as_int64(0), 24);
  EXPECT_EQ(sum->constant, nullptr) << "the graph is not folded";
  EXPECT_EQ(twice->constant, nullptr);
  EXPECT_EQ(a->users.size(), 1u);
  // A run-time leaf: unknown.
  Value* in = g.add_value("in", DType::Int64, {});
  in->is_graph_input = true;
  Value* plus = g.add_value("plus", DType::Int64, {});
  g.add_node("Add", "plus", {in, a}, {plus});
  EXPECT_EQ(compile_time_value(plus, 0, &tmp), nullptr);
}

TEST(CompileTimeValue, SequenceLengthOfAListOfKnownLength) {
  Graph g;
  Value* e = g.add_value("e", DType::Float32, {2});
  e->is_graph_input = true;
  Value* s = g.add_value("s", DType::Float32, {});
  s->is_sequence = true;
  s->shape_known = false;
  g.add_node("SequenceConstruct", "construct", {e, e, e}, {s});
  Value* s2 = g.add_value("s2", DType::Float32, {});
  s2->is_sequence = true;
  s2->shape_known = false;
  g.add_node("SequenceInsert", "insert", {s, e}, {s2});
  Value* len = g.add_value("len", DType::Int64, {});
  g.add_node("SequenceLength", "len", {s2}, {len});
  std::deque<Value> tmp;
  ConstantPtr c = compile_time_value(len, 0, &tmp);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->as_int64(0), 4);
}

// A Loop body (i, cond_in, x) whose cond_out is `make_cond(body)`.
std::shared_ptr<Graph> body_with(Value* (*make_cond)(Graph&, Value* cond_in)) {
  auto b = std::make_shared<Graph>();
  Value* i = b->add_value("i", DType::Int64, {});
  Value* cond_in = b->add_value("cond_in", DType::Bool, {});
  Value* x = b->add_value("x", DType::Float32, {2});
  b->inputs = {i, cond_in, x};
  b->outputs = {make_cond(*b, cond_in), x};
  return b;
}

TEST(BodyNeverStops, OnlyCondInPassedOnOrAConstantTrue) {
  EXPECT_TRUE(body_never_stops(*body_with([](Graph& b, Value* cond_in) {
    Value* c = b.add_value("c", DType::Bool, {});
    b.add_node("Identity", "pass", {cond_in}, {c});
    return c;
  })));
  EXPECT_TRUE(body_never_stops(*body_with([](Graph& b, Value*) {
    Value* c = b.add_value("c", DType::Bool, {});
    Node* k = b.add_node("Constant", "yes", {}, {c});
    k->attrs["value"] = Constant::from_bytes(DType::Bool, {}, {1});
    return c;
  })));
  EXPECT_FALSE(body_never_stops(*body_with([](Graph& b, Value* cond_in) {
    Value* c = b.add_value("c", DType::Bool, {});
    b.add_node("Not", "flip", {cond_in}, {c});
    return c;
  })));
  EXPECT_FALSE(body_never_stops(*body_with([](Graph& b, Value*) {
    Value* c = b.add_value("c", DType::Bool, {});
    Node* k = b.add_node("Constant", "no", {}, {c});
    k->attrs["value"] = Constant::from_bytes(DType::Bool, {}, {0});
    return c;
  })));
}

// A Loop node's view with the given own inputs (the graph's values).
struct LoopView : NodeView {
  std::vector<Value*> ins;
  Value* input(size_t i) const override { return i < ins.size() ? ins[i] : nullptr; }
  Value* make_output(size_t) const override { return nullptr; }
  Value* make_open_output(size_t) const override { return nullptr; }
  Value* make_output_typed(size_t, DType, const Shape&) const override { return nullptr; }
};

TEST(LoopDecidable, WaitsForARunTimeTripCountOrCondition) {
  Graph g;
  Node loop;
  loop.op_type = "Loop";
  loop.name = "loop";
  Value* out = g.add_value("out", DType::Float32, {2});
  loop.outputs = {out};
  Value* x = g.add_value("x", DType::Float32, {2});
  x->is_graph_input = true;
  Value* runtime_m = g.add_value("m", DType::Int64, {});
  runtime_m->is_graph_input = true;
  Value* runtime_cond = g.add_value("c", DType::Bool, {});
  runtime_cond->is_graph_input = true;
  Value* three = i64_scalar(g, "three", 3);
  Value* t = g.add_value("t", DType::Bool, {});
  t->constant = Constant::from_bytes(DType::Bool, {}, {1});

  LoopView v;
  v.node = &loop;
  v.name = "loop";
  v.own_inputs = 3;
  v.ins = {three, t, x};
  EXPECT_TRUE(loop_decidable(v));
  v.ins = {three, nullptr, x};
  EXPECT_TRUE(loop_decidable(v)) << "no condition";
  v.ins = {runtime_m, t, x};
  EXPECT_FALSE(loop_decidable(v)) << "the trip count may still fold";
  v.ins = {three, runtime_cond, x};
  EXPECT_FALSE(loop_decidable(v)) << "the condition may still fold";
  // A carried sequence: the sequence pass needs the Loop unrolled now.
  Value* s = g.add_value("s", DType::Float32, {});
  s->is_sequence = true;
  s->shape_known = false;
  v.ins = {runtime_m, runtime_cond, s};
  EXPECT_TRUE(loop_decidable(v));
}

}  // namespace
}  // namespace kiln::controlflow
