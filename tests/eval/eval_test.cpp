// Unit tests of the compile-time evaluator (eval/evaluate.h), which constant
// folding and the control-flow pass share: which nodes it evaluates, the precision
// it keeps, the size limit, views that share storage, and its errors.
#include <gtest/gtest.h>

#include <cmath>

#include "eval/evaluate.h"
#include "../support/graph_builder.h"
#include "util/error.h"

namespace kiln {
namespace {

using test_support::GraphBuilder;

Value* f32_const(GraphBuilder& b, const std::string& name, Shape s, std::vector<float> v) {
  Value* x = b.val(name, s);
  x->constant = Constant::from_floats(s, v);
  return x;
}

TEST(Evaluate, AddBroadcastsLikeNumpy) {
  GraphBuilder b;
  Value* a = f32_const(b, "a", {2, 3}, {1, 2, 3, 4, 5, 6});
  Value* c = f32_const(b, "c", {3}, {10, 20, 30});
  Value* y = b.val("y", {2, 3});
  Node* n = b.op("Add", "add", {a, c}, {y});
  EvalResult r = evaluate_node(*n, 1 << 20);
  ASSERT_TRUE(r.evaluated);
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_EQ(r.outputs[0]->shape(), (Shape{2, 3}));
  EXPECT_EQ(r.outputs[0]->to_doubles(), (std::vector<double>{11, 22, 33, 14, 25, 36}));
}

TEST(Evaluate, FloatsAreKeptWideAndRoundedOnceAtTheEnd) {
  // 1 + 1e-8 is 1 in float32; a chain that rounds each step would lose the 1e-8
  // before multiplying it by 1e8. The folded value keeps it until emission.
  const ConstantPtr one = Constant::from_floats({1}, {1.0f});
  const ConstantPtr tiny = Constant::from_doubles(DType::Float64, {1}, {1e-8});
  const ConstantPtr sum = fold_binary("Add", one, tiny, DType::Float32, {1});
  EXPECT_NE(sum->wide_at(0).f, 1.0);           // kept in double
  EXPECT_EQ(sum->as_double(0), 1.0);           // rounded to float32 when emitted
}

TEST(Evaluate, IntegerDivisionTruncatesAndWraps) {
  std::vector<WideNum> a(3), b(3);
  a[0].i = -7, a[1].i = 7, a[2].i = INT64_MIN;
  b[0].i = 2, b[1].i = -2, b[2].i = 1;
  wide_binary("Div", WideKind::Int, a.data(), b.data(), 3);
  EXPECT_EQ(a[0].i, -3);
  EXPECT_EQ(a[1].i, -3);
  EXPECT_EQ(a[2].i, INT64_MIN);
}

TEST(Evaluate, AnOpWithoutAWideFormIsRefused) {
  WideNum a{}, b{};
  EXPECT_ANY_THROW(wide_binary("NoSuchOp", WideKind::Float, &a, &b, 1));
}

TEST(Evaluate, ShapeNeedsNoInputValues) {
  GraphBuilder b;
  Value* x = b.input("x", {4, 5, 6});  // computed at run time
  Value* s = b.val("s", {3}, DType::Int64);
  Node* n = b.op("Shape", "shape", {x}, {s});
  EXPECT_TRUE(can_evaluate_without_inputs(*n));
  EvalResult r = evaluate_node(*n, 1 << 20);
  ASSERT_TRUE(r.evaluated);
  EXPECT_EQ(r.outputs[0]->to_int64s(), (std::vector<int64_t>{4, 5, 6}));
}

TEST(Evaluate, ARunTimeInputIsNotEvaluated) {
  GraphBuilder b;
  Value* x = b.input("x", {3});
  Value* c = f32_const(b, "c", {3}, {1, 2, 3});
  Value* y = b.val("y", {3});
  Node* n = b.op("Mul", "mul", {x, c}, {y});
  EXPECT_FALSE(can_evaluate_without_inputs(*n));
  EXPECT_FALSE(evaluate_node(*n, 1 << 20).evaluated);
}

TEST(Evaluate, AResultOverTheSizeLimitIsSkippedAndSaysSo) {
  // Expand [1] -> [1000] of float32 is 4000 bytes; a limit of 100 bytes skips it
  // (the result is bigger than the node's inputs).
  GraphBuilder b;
  Value* x = f32_const(b, "x", {1}, {2.5f});
  Value* shape = b.i64("shape", {1000});
  Value* y = b.val("y", {1000});
  Node* n = b.op("Expand", "expand", {x, shape}, {y});
  EvalResult small = evaluate_node(*n, 100);
  EXPECT_FALSE(small.evaluated);
  EXPECT_TRUE(small.skipped_by_size_limit);
  EvalResult big = evaluate_node(*n, 1 << 20);
  ASSERT_TRUE(big.evaluated);
  EXPECT_EQ(big.outputs[0]->num_elements(), 1000);
  EXPECT_EQ(big.outputs[0]->as_double(999), 2.5);
  EXPECT_TRUE(big.outputs[0]->is_splat());  // a view of one element, not 1000 copies
}

TEST(Evaluate, TransposeIsAViewOfItsInput) {
  GraphBuilder b;
  Value* x = f32_const(b, "x", {2, 3}, {1, 2, 3, 4, 5, 6});
  Value* y = b.val("y", {3, 2});
  Node* n = b.op("Transpose", "t", {x}, {y});
  n->attrs["perm"] = std::vector<int64_t>{1, 0};
  EvalResult r = evaluate_node(*n, 1 << 20);
  ASSERT_TRUE(r.evaluated);
  EXPECT_EQ(r.outputs[0]->to_doubles(), (std::vector<double>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(r.outputs[0]->buffer(), x->constant->buffer());  // shares storage
}

TEST(Evaluate, IncompatibleBroadcastNamesTheValue) {
  try {
    broadcast_shapes({2, 3}, {4}, "Add 'bad'");
    FAIL() << "expected a CompileError";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("Add 'bad'"), std::string::npos) << e.what();
  }
  EXPECT_EQ(broadcast_shapes({2, 1, 3}, {4, 1}, "x"), (Shape{2, 4, 3}));
}

TEST(Evaluate, KnowsItsOps) {
  EXPECT_TRUE(has_evaluator("Add"));
  EXPECT_TRUE(has_evaluator("Concat"));
  EXPECT_FALSE(has_evaluator("Conv"));  // never folded: a Conv of constants is left to the runtime
}

}  // namespace
}  // namespace kiln
