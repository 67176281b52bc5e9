// The fold & simplify pass: every folding evaluator family and every rewrite rule,
// checked against numpy-computed values (expected_data.h, from gen_expected.py).
#include <gtest/gtest.h>

#include <cmath>

#include "expected_data.h"
#include "fold/fold.h"
#include "onnx/node_shape_inference.h"
#include "ir/graph.h"

namespace kiln {
namespace {

using namespace fold_expected;

ConstantPtr f32(const std::vector<double>& v, const std::vector<int64_t>& shape) {
  return Constant::from_floats(shape, std::vector<float>(v.begin(), v.end()));
}

void expect_values(const ConstantPtr& c, const std::vector<double>& want, const std::vector<int64_t>& shape) {
  ASSERT_TRUE(c);
  ASSERT_EQ(c->shape(), shape);
  auto got = c->to_doubles();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (wide_kind(c->dtype()) == WideKind::Float && c->dtype() == DType::Float32)
      EXPECT_FLOAT_EQ(float(got[i]), float(want[i])) << "element " << i;
    else if (wide_kind(c->dtype()) == WideKind::Float)
      EXPECT_DOUBLE_EQ(got[i], want[i]) << "element " << i;
    else
      EXPECT_EQ(got[i], want[i]) << "element " << i;
  }
}

struct Builder {
  Graph g;
  Builder() { g.opset = 17; }
  Value* input(const std::string& name, DType t, Shape s) {
    Value* v = g.add_value(name, t, std::move(s));
    v->is_graph_input = true;
    g.inputs.push_back(v);
    return v;
  }
  Value* cst(const std::string& name, ConstantPtr c) {
    Value* v = g.add_value(name, c->dtype(), c->shape());
    v->constant = std::move(c);
    return v;
  }
  Value* i64(const std::string& name, std::vector<int64_t> v, Shape s) { return cst(name, Constant::from_int64s(s, v)); }
  Value* op(const std::string& type, std::vector<Value*> ins, DType t, Shape s,
            std::map<std::string, AttrValue> attrs = {}) {
    Value* out = g.add_value(g.unique_name(type + "_out"), t, std::move(s));
    Node* n = g.add_node(type, g.unique_name(type), std::move(ins), {out});
    n->attrs = std::move(attrs);
    return out;
  }
  void output(Value* v) {
    v->is_graph_output = true;
    g.outputs.push_back(v);
  }
  std::vector<Node*> nodes(const std::string& op = "") {
    std::vector<Node*> r;
    for (auto& n : g.nodes)
      if (op.empty() || n->op_type == op) r.push_back(n.get());
    return r;
  }
  FoldReport fold(int64_t limit = 1 << 20, bool gc = true) {
    FoldOptions o;
    o.size_limit_bytes = limit;
    o.gc = gc;
    o.infer_shapes = infer_node_shapes;
    return fold_and_simplify(g, o);
  }
};

// ---- canonicalization -----------------------------------------------------------

TEST(FoldRewrites, AddReassociationCombinesConstants) {
  Builder b;
  Value* x = b.input("x", DType::Float32, {2, 3});
  Value* c1 = b.cst("c1", f32(reassoc_c1, reassoc_c1_shape));
  Value* c2 = b.cst("c2", f32(reassoc_c2, reassoc_c2_shape));
  // Constant first: commuted to the right, then reassociated.
  Value* t = b.op("Add", {c1, x}, DType::Float32, {2, 3});
  Value* y = b.op("Add", {t, c2}, DType::Float32, {2, 3});
  b.output(y);
  auto r = b.fold();
  auto adds = b.nodes("Add");
  ASSERT_EQ(b.nodes().size(), 1u);
  ASSERT_EQ(adds.size(), 1u);
  EXPECT_EQ(adds[0]->inputs[0], x);
  expect_values(adds[0]->inputs[1]->constant, reassoc_add, reassoc_add_shape);
  EXPECT_EQ(r.rewritten["reassociate"], 1);
  EXPECT_EQ(r.rewritten["commute-constant-right"], 1);
}

TEST(FoldRewrites, MulReassociationCombinesConstants) {
  Builder b;
  Value* x = b.input("x", DType::Float32, {2, 3});
  Value* t = b.op("Mul", {x, b.cst("c3", f32(reassoc_c3, reassoc_c3_shape))}, DType::Float32, {2, 3});
  Value* y = b.op("Mul", {t, b.cst("c4", f32(reassoc_c4, reassoc_c4_shape))}, DType::Float32, {2, 3});
  b.output(y);
  b.fold();
  auto muls = b.nodes("Mul");
  ASSERT_EQ(muls.size(), 1u);
  expect_values(muls[0]->inputs[1]->constant, reassoc_mul, reassoc_mul_shape);
}

TEST(FoldRewrites, SubOfConstantBecomesAddOfNegation) {
  Builder b;
  Value* x = b.input("x", DType::Float32, {4});
  Value* y = b.op("Sub", {x, b.cst("c", f32(sub_c, sub_c_shape))}, DType::Float32, {4});
  b.output(y);
  b.fold();
  ASSERT_EQ(b.nodes().size(), 1u);
  Node* n = b.nodes()[0];
  EXPECT_EQ(n->op_type, "Add");
  expect_values(n->inputs[1]->constant, sub_neg, sub_neg_shape);
}

TEST(FoldRewrites, IdentitiesAndDropoutAreRemoved) {
  Builder b;
  Value* x = b.input("x", DType::Float32, {2, 3});
  Value* one = b.cst("one", Constant::from_floats({1}, {1.0f}));
  Value* zero = b.cst("zero", Constant::from_floats({}, {0.0f}));
  Value* a = b.op("Mul", {x, one}, DType::Float32, {2, 3});
  Value* c = b.op("Add", {a, zero}, DType::Float32, {2, 3});
  Value* d = b.op("Identity", {c}, DType::Float32, {2, 3});
  Value* e = b.op("Dropout", {d}, DType::Float32, {2, 3});
  Value* f = b.op("Div", {e, one}, DType::Float32, {2, 3});
  Value* y = b.op("Relu", {f}, DType::Float32, {2, 3});
  b.output(y);
  auto r = b.fold();
  ASSERT_EQ(b.nodes().size(), 1u);
  EXPECT_EQ(b.nodes()[0]->op_type, "Relu");
  EXPECT_EQ(b.nodes()[0]->inputs[0], x);
  EXPECT_EQ(r.rewritten["identity-removal"], 5);
  EXPECT_EQ(r.nodes_before, 6u);
  EXPECT_EQ(r.nodes_after, 1u);
}

TEST(FoldRewrites, MulByNonNeutralOrBroadcastingConstantStays) {
  Builder b;
  Value* x = b.input("x", DType::Float32, {3});
  Value* one = b.cst("one", Constant::from_floats({2, 3}, {1, 1, 1, 1, 1, 1}));  // broadcasts x up: not an identity
  b.output(b.op("Mul", {x, one}, DType::Float32, {2, 3}));
  b.fold();
  EXPECT_EQ(b.nodes("Mul").size(), 1u);
}

TEST(FoldRewrites, ConvBatchNormFoldsIntoWeights) {
  Builder b;
  Value* x = b.input("x", DType::Float32, {1, 2, 5, 5});
  Value* w = b.cst("w", f32(bn_w, bn_w_shape));
  Value* bias = b.cst("b", f32(bn_b, bn_b_shape));
  Value* c = b.op("Conv", {x, w, bias}, DType::Float32, {1, 4, 3, 3});
  Value* y = b.op("BatchNormalization",
                  {c, b.cst("s", f32(bn_scale, {4})), b.cst("be", f32(bn_beta, {4})), b.cst("m", f32(bn_mean, {4})),
                   b.cst("v", f32(bn_var, {4}))},
                  DType::Float32, {1, 4, 3, 3}, {{"epsilon", 1e-5}});
  b.output(y);
  ConstantBufferPtr wbuf = w->constant->buffer();
  auto r = b.fold();
  ASSERT_EQ(b.nodes().size(), 1u);
  Node* conv = b.nodes()[0];
  EXPECT_EQ(conv->op_type, "Conv");
  EXPECT_EQ(conv->outputs[0], y);  // the graph output keeps its value and name
  expect_values(conv->inputs[1]->constant, bn_w_fused, bn_w_fused_shape);
  expect_values(conv->inputs[2]->constant, bn_b_fused, bn_b_fused_shape);
  // The fused weight is a lazy transform of the original bytes, not a copy.
  EXPECT_EQ(conv->inputs[1]->constant->buffer(), wbuf);
  EXPECT_EQ(r.rewritten["conv-batchnorm"], 1);
}

TEST(FoldRewrites, GemmBatchNormFoldsIntoWeights) {
  Builder b;
  Value* a = b.input("a", DType::Float32, {5, 6});
  Value* g = b.op("Gemm", {a, b.cst("B", f32(gbn_b, gbn_b_shape)), b.cst("C", f32(gbn_c, gbn_c_shape))}, DType::Float32,
                  {5, 4}, {{"transB", int64_t(1)}, {"beta", 0.5}});
  Value* y = b.op("BatchNormalization",
                  {g, b.cst("s", f32(gbn_scale, {4})), b.cst("be", f32(gbn_beta, {4})), b.cst("m", f32(gbn_mean, {4})),
                   b.cst("v", f32(gbn_var, {4}))},
                  DType::Float32, {5, 4}, {{"epsilon", 1e-5}});
  Value* z = b.op("Relu", {y}, DType::Float32, {5, 4});
  b.output(z);
  b.fold();
  ASSERT_EQ(b.nodes("Gemm").size(), 1u);
  ASSERT_EQ(b.nodes().size(), 2u);
  Node* gemm = b.nodes("Gemm")[0];
  expect_values(gemm->inputs[1]->constant, gbn_b_fused, gbn_b_fused_shape);
  expect_values(gemm->inputs[2]->constant, gbn_c_fused, gbn_c_fused_shape);
  EXPECT_EQ(gemm->attr_float("beta", 0), 1.0);
}

TEST(FoldRewrites, ConvPerChannelMulAndAddFoldIntoWeights) {
  Builder b;
  Value* x = b.input("x", DType::Float32, {1, 2, 5, 5});
  Value* c = b.op("Conv", {x, b.cst("w", f32(bn_w, bn_w_shape)), b.cst("b", f32(bn_b, bn_b_shape))}, DType::Float32,
                  {1, 4, 3, 3});
  Value* m = b.op("Mul", {c, b.cst("cm", f32(ch_mul, ch_mul_shape))}, DType::Float32, {1, 4, 3, 3});
  Value* y = b.op("Add", {m, b.cst("ca", f32(ch_add, ch_add_shape))}, DType::Float32, {1, 4, 3, 3});
  b.output(y);
  auto r = b.fold();
  ASSERT_EQ(b.nodes().size(), 1u);
  Node* conv = b.nodes()[0];
  expect_values(conv->inputs[1]->constant, ch_w_fused, ch_w_fused_shape);
  expect_values(conv->inputs[2]->constant, ch_b_fused, ch_b_fused_shape);
  EXPECT_EQ(r.rewritten["conv-channel-affine"], 2);
}

TEST(FoldRewrites, ConsecutiveTransposesMerge) {
  Builder b;
  Value* x = b.input("x", DType::Float32, {2, 3, 4});
  Value* t1 = b.op("Transpose", {x}, DType::Float32, {3, 4, 2}, {{"perm", std::vector<int64_t>{1, 2, 0}}});
  Value* t2 = b.op("Transpose", {t1}, DType::Float32, {2, 3, 4}, {{"perm", std::vector<int64_t>{2, 0, 1}}});
  Value* u1 = b.op("Transpose", {t2}, DType::Float32, {4, 2, 3}, {{"perm", std::vector<int64_t>{2, 0, 1}}});
  Value* u2 = b.op("Transpose", {u1}, DType::Float32, {4, 3, 2}, {{"perm", std::vector<int64_t>{0, 2, 1}}});
  b.output(b.op("Relu", {u2}, DType::Float32, {4, 3, 2}));
  b.fold();
  auto ts = b.nodes("Transpose");
  ASSERT_EQ(ts.size(), 1u);  // t1,t2 cancel; u1,u2 merge
  EXPECT_EQ(ts[0]->inputs[0], x);
  EXPECT_EQ(ts[0]->attr_ints("perm"), (std::vector<int64_t>{2, 1, 0}));

  // The same chain over a constant folds to numpy's values (strided views only).
  Builder c;
  Value* k = c.cst("k", f32(tr_x, tr_x_shape));
  Value* v1 = c.op("Transpose", {k}, DType::Float32, {4, 2, 3}, {{"perm", std::vector<int64_t>{2, 0, 1}}});
  Value* v2 = c.op("Transpose", {v1}, DType::Float32, {4, 3, 2}, {{"perm", std::vector<int64_t>{0, 2, 1}}});
  c.output(v2);
  ConstantBufferPtr kbuf = k->constant->buffer();
  c.fold();
  expect_values(v2->constant, tr_q, tr_q_shape);
  EXPECT_EQ(v2->constant->buffer(), kbuf);
}

TEST(FoldRewrites, ConsecutiveReshapesMerge) {
  Builder b;
  Value* x = b.input("x", DType::Float32, {2, 3, 4});
  Value* r1 = b.op("Reshape", {x, b.i64("s1", {6, 4}, {2})}, DType::Float32, {6, 4});
  Value* r2 = b.op("Reshape", {r1, b.i64("s2", {4, 6}, {2})}, DType::Float32, {4, 6});
  b.output(b.op("Relu", {r2}, DType::Float32, {4, 6}));
  b.fold();
  auto rs = b.nodes("Reshape");
  ASSERT_EQ(rs.size(), 1u);
  EXPECT_EQ(rs[0]->inputs[0], x);
}

TEST(FoldRewrites, DeadNodesAreRemoved) {
  Builder b;
  Value* x = b.input("x", DType::Float32, {2});
  b.op("Relu", {x}, DType::Float32, {2});  // unused
  b.output(b.op("Sigmoid", {x}, DType::Float32, {2}));
  auto r = b.fold();
  EXPECT_EQ(b.nodes().size(), 1u);
  EXPECT_EQ(r.rewritten["dead-node"], 1);
}

// ---- folding ---------------------------------------------------------------------

TEST(FoldOps, PytorchFlattenChainResolvesInOnePass) {
  Builder b;
  Value* x = b.input("x", DType::Float32, {2, 3, 4, 5});
  Value* cur = x;
  Shape s = {2, 3, 4, 5};
  // Two flattens in a row, each Shape -> Gather -> Unsqueeze -> Concat -> Reshape.
  for (int i = 0; i < 2; ++i) {
    Value* sh = b.op("Shape", {cur}, DType::Int64, {int64_t(s.size())});
    Value* g = b.op("Gather", {sh, b.i64("idx" + std::to_string(i), {0}, {})}, DType::Int64, {}, {{"axis", int64_t(0)}});
    Value* u = b.op("Unsqueeze", {g, b.i64("ax" + std::to_string(i), {0}, {1})}, DType::Int64, {1});
    Value* c = b.op("Concat", {u, b.i64("m" + std::to_string(i), {-1}, {1})}, DType::Int64, {2}, {{"axis", int64_t(0)}});
    s = {2, i == 0 ? 60 : 60};
    cur = b.op("Reshape", {cur, c}, DType::Float32, s);
  }
  b.output(b.op("Relu", {cur}, DType::Float32, s));
  auto r = b.fold();
  auto rs = b.nodes("Reshape");
  ASSERT_EQ(rs.size(), 1u);  // the shape math folded, then the two reshapes merged
  EXPECT_EQ(b.nodes().size(), 2u);
  EXPECT_EQ(rs[0]->inputs[0], x);
  EXPECT_EQ(r.folded["Shape"], 2);
  EXPECT_EQ(r.folded["Concat"], 2);
}

TEST(FoldOps, ShapesHangingOnFoldedConstantsAreInferredInTheSamePass) {
  // As imported from PyTorch: the Reshape's output shape is unknown until the
  // Shape -> Gather -> Unsqueeze -> Concat chain is folded.
  Builder b;
  Value* x = b.input("x", DType::Float32, {2, 3, 4});
  Value* sh = b.op("Shape", {x}, DType::Int64, {3});
  Value* g = b.op("Gather", {sh, b.i64("idx", {0}, {})}, DType::Int64, {}, {{"axis", int64_t(0)}});
  Value* u = b.op("Unsqueeze", {g, b.i64("ax", {0}, {1})}, DType::Int64, {1});
  Value* c = b.op("Concat", {u, b.i64("m", {-1}, {1})}, DType::Int64, {2}, {{"axis", int64_t(0)}});
  Value* r = b.op("Reshape", {x, c}, DType::Float32, {});
  Value* y = b.op("Relu", {r}, DType::Float32, {});
  r->shape_known = y->shape_known = false;
  b.output(y);
  auto rep = b.fold();
  EXPECT_TRUE(r->shape_known);
  EXPECT_EQ(r->shape, (Shape{2, 12}));
  EXPECT_TRUE(y->shape_known);
  EXPECT_EQ(y->shape, (Shape{2, 12}));
  EXPECT_EQ(rep.shapes_inferred, 2);
  ASSERT_EQ(b.nodes("Reshape").size(), 1u);
  EXPECT_TRUE(b.nodes("Reshape")[0]->inputs[1]->is_constant());
}

TEST(FoldOps, ExpandTileWhereCastSliceConcatSqueeze) {
  Builder b;
  Value* x = b.cst("x", f32(op_x, op_x_shape));
  Value* e = b.op("Expand", {b.cst("e", f32(op_expand_in, op_expand_in_shape)), b.i64("es", {2, 3, 4}, {3})},
                  DType::Float32, {2, 3, 4});
  Value* t = b.op("Tile", {x, b.i64("reps", {1, 2, 1}, {3})}, DType::Float32, {2, 6, 4});
  Value* gt = b.op("Greater", {x, b.cst("z", Constant::from_floats({}, {0.0f}))}, DType::Bool, {2, 3, 4});
  Value* w = b.op("Where", {gt, x, b.cst("m1", Constant::from_floats({}, {-1.0f}))}, DType::Float32, {2, 3, 4});
  Value* ci = b.op("Cast", {x}, DType::Int32, {2, 3, 4}, {{"to", int64_t(6)}});
  Value* sl = b.op("Slice", {x, b.i64("st", {2, 0}, {2}), b.i64("en", {0, 4}, {2}), b.i64("ax", {1, 2}, {2}),
                             b.i64("sp", {-1, 2}, {2})},
                   DType::Float32, {2, 2, 2});
  Value* cc = b.op("Concat", {x, b.cst("y", f32(op_y, op_y_shape))}, DType::Float32, {2, 5, 4}, {{"axis", int64_t(1)}});
  Value* us = b.op("Unsqueeze", {x, b.i64("ua", {1}, {1})}, DType::Float32, {2, 1, 3, 4});
  Value* sq = b.op("Squeeze", {us, b.i64("sa", {1}, {1})}, DType::Float32, {2, 3, 4});
  for (Value* v : {e, t, w, ci, sl, cc, sq}) b.output(v);
  b.fold();
  EXPECT_TRUE(b.nodes().empty());
  expect_values(e->constant, op_expand, op_expand_shape);
  EXPECT_EQ(e->constant->strides(), (std::vector<int64_t>{0, 1, 0}));  // a broadcast view
  expect_values(t->constant, op_tile, op_tile_shape);
  expect_values(w->constant, op_where, op_where_shape);
  expect_values(ci->constant, op_cast_i32, op_cast_i32_shape);
  expect_values(sl->constant, op_slice, op_slice_shape);
  expect_values(cc->constant, op_concat, op_concat_shape);
  expect_values(sq->constant, op_squeeze, op_squeeze_shape);
}

TEST(FoldOps, ReductionsRangeGatherMatMulSoftmaxBinaryUnary) {
  Builder b;
  Value* x = b.cst("x", f32(op_x, op_x_shape));
  Value* rs = b.op("ReduceSum", {x, b.i64("a1", {1}, {1})}, DType::Float32, {2, 1, 4});
  Value* rm = b.op("ReduceMean", {x}, DType::Float32, {3}, {{"axes", std::vector<int64_t>{0, 2}}, {"keepdims", int64_t(0)}});
  Value* rx = b.op("ReduceMax", {x}, DType::Float32, {2, 3, 1}, {{"axes", std::vector<int64_t>{-1}}});
  Value* rg = b.op("Range", {b.i64("r0", {3}, {}), b.i64("r1", {20}, {}), b.i64("r2", {4}, {})}, DType::Int64, {5});
  Value* ga = b.op("Gather", {x, b.i64("gi", {2, 0, -1}, {3})}, DType::Float32, {2, 3, 4}, {{"axis", int64_t(1)}});
  Value* mm = b.op("MatMul", {b.cst("m1", f32(op_m1, op_m1_shape)), b.cst("m2", f32(op_m2, op_m2_shape))},
                   DType::Float32, {3, 5});
  Value* sm = b.op("Softmax", {x}, DType::Float32, {2, 3, 4});
  Value* dv = b.op("Div", {x, b.cst("d", Constant::from_floats({4}, {1.5f, -2.0f, 4.0f, 0.25f}))}, DType::Float32,
                   {2, 3, 4});
  Value* sa = b.op("Sqrt", {b.op("Abs", {x}, DType::Float32, {2, 3, 4})}, DType::Float32, {2, 3, 4});
  for (Value* v : {rs, rm, rx, rg, ga, mm, sm, dv, sa}) b.output(v);
  b.fold();
  EXPECT_TRUE(b.nodes().empty());
  expect_values(rs->constant, op_reduce_sum, {2, 1, 4});
  expect_values(rm->constant, op_reduce_mean, op_reduce_mean_shape);
  expect_values(rx->constant, op_reduce_max, op_reduce_max_shape);
  expect_values(rg->constant, op_range, op_range_shape);
  expect_values(ga->constant, op_gather, op_gather_shape);
  expect_values(mm->constant, op_matmul, op_matmul_shape);
  expect_values(sm->constant, op_softmax, op_softmax_shape);
  expect_values(dv->constant, op_div_bcast, op_div_bcast_shape);
  expect_values(sa->constant, op_sqrt_abs, op_sqrt_abs_shape);
}

TEST(FoldOps, ConstantOfShapeIsASplatAndSizeLimitKeepsBigExpands) {
  Builder b;
  Value* x = b.input("x", DType::Float32, {1024, 1024});
  Value* shp = b.op("Shape", {x}, DType::Int64, {2});
  WideNum seven;
  seven.f = 7.0;
  Value* cos = b.op("ConstantOfShape", {shp}, DType::Float32, {1024, 1024},
                    {{"value", Constant::splat(DType::Float32, {1}, seven)->materialized()}});
  Value* ex = b.op("Expand", {b.cst("s", Constant::from_floats({1}, {2.0f})), b.i64("es", {1024, 1024}, {2})},
                   DType::Float32, {1024, 1024});
  Value* y = b.op("Add", {b.op("Add", {x, cos}, DType::Float32, {1024, 1024}), ex}, DType::Float32, {1024, 1024});
  b.output(y);
  auto r = b.fold(/*limit=*/1 << 20);
  // 4 MiB results from 8-byte inputs: both stay runtime ops and are reported.
  EXPECT_EQ(r.skipped_by_size_limit.size(), 2u);
  EXPECT_EQ(b.nodes("Expand").size(), 1u);
  EXPECT_EQ(b.nodes("ConstantOfShape").size(), 1u);

  Builder c;
  Value* shp2 = c.i64("shape", {1024, 1024}, {2});
  Value* cos2 = c.op("ConstantOfShape", {shp2}, DType::Float32, {1024, 1024},
                     {{"value", Constant::splat(DType::Float32, {1}, seven)->materialized()}});
  c.output(cos2);
  auto r2 = c.fold(/*limit=*/8 << 20);
  EXPECT_TRUE(r2.skipped_by_size_limit.empty());
  ASSERT_TRUE(cos2->constant);
  EXPECT_EQ(cos2->constant->buffer()->size(), 8u);  // a splat: one wide number of storage
  EXPECT_EQ(cos2->constant->as_double(1024 * 1024 - 1), 7.0);
}

TEST(FoldOps, DequantizeLinearOfInt8WeightsIsNotExpanded) {
  Builder b;
  Value* x = b.input("x", DType::Float32, {2, 4});
  Value* q = b.cst("q", Constant::from_bytes(DType::Int8, {4, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0xF0}));
  Value* s = b.cst("scale", Constant::from_floats({}, {0.5f}));
  Value* zp = b.cst("zp", Constant::from_bytes(DType::Int8, {}, {0}));
  Value* w = b.op("DequantizeLinear", {q, s, zp}, DType::Float32, {4, 3});
  Value* wt = b.op("Transpose", {w}, DType::Float32, {3, 4}, {{"perm", std::vector<int64_t>{1, 0}}});
  b.output(b.op("MatMul", {x, b.op("Transpose", {wt}, DType::Float32, {4, 3}, {{"perm", std::vector<int64_t>{1, 0}}})},
                DType::Float32, {2, 3}));
  auto r = b.fold();
  auto dq = b.nodes("DequantizeLinear");
  ASSERT_EQ(dq.size(), 1u);
  EXPECT_EQ(dq[0]->inputs[0], q);  // still the int8 bytes
  EXPECT_EQ(q->constant->dtype(), DType::Int8);
  EXPECT_TRUE(b.nodes("Transpose").empty());  // the transposes around it cancel
  EXPECT_EQ(r.folded.count("DequantizeLinear"), 0u);
}

TEST(FoldOps, FloatsAreComputedWideAndRoundedOnce) {
  Builder b;
  Value* one = b.cst("one", Constant::from_floats({1}, {1.0f}));
  Value* big = b.cst("big", Constant::from_floats({1}, {1e8f}));
  Value* s = b.op("Add", {one, big}, DType::Float32, {1});
  Value* d = b.op("Sub", {s, big}, DType::Float32, {1});
  b.output(d);
  b.fold();
  ASSERT_TRUE(d->constant);
  EXPECT_EQ(d->constant->as_double(0), wide_double[0]);
  EXPECT_NE(d->constant->as_double(0), wide_stepwise_f32[0]);  // the documented difference
}

TEST(FoldOps, IntegerDivisionByZeroStaysARuntimeOp) {
  Builder b;
  Value* y = b.op("Div", {b.i64("a", {6, 7}, {2}), b.i64("z", {2, 0}, {2})}, DType::Int64, {2});
  b.output(y);
  b.fold();
  EXPECT_EQ(b.nodes("Div").size(), 1u);
}

// ---- the pass ---------------------------------------------------------------------

ConstantPtr big_f32(int64_t n, float base) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[size_t(i)] = base + float(i % 17);
  return Constant::from_floats({n}, v);
}

TEST(FoldPass, GarbageCollectionReleasesDeadIntermediates) {
  for (bool gc : {true, false}) {
    Builder b;
    const int64_t n = 100000;
    Value* acc = b.cst("c0", big_f32(n, 0));
    std::vector<std::weak_ptr<const Constant>> inputs;
    for (int i = 1; i <= 4; ++i) {
      Value* c = b.cst("c" + std::to_string(i), big_f32(n, float(i)));
      acc = b.op(i % 2 ? "Add" : "Mul", {acc, c}, DType::Float32, {n});
    }
    b.output(acc);
    auto r = b.fold(1 << 30, gc);
    ASSERT_TRUE(acc->constant);
    EXPECT_EQ(r.constants_created, 4u);
    EXPECT_EQ(r.constants_created_bytes, 4u * n * 8);  // wide (double) storage
    if (gc) {
      EXPECT_EQ(r.constants_released, 3u);  // every intermediate; the output stays
      EXPECT_LE(r.peak_live_fold_bytes, 2u * n * 8);
    } else {
      EXPECT_EQ(r.constants_released, 0u);
      EXPECT_EQ(r.peak_live_fold_bytes, 4u * n * 8);
    }
    // Expected value of element 5: (((5+6)*7)+8)*9 with c_i = i + 5 (5 % 17 = 5).
    EXPECT_EQ(acc->constant->as_double(5), (((5.0 + 6.0) * 7.0) + 8.0) * 9.0);
  }
}

TEST(FoldPass, RewriteCapStopsThePass) {
  Builder b;
  Value* acc = b.cst("c0", Constant::from_floats({1}, {1.0f}));
  for (int i = 0; i < 5; ++i) acc = b.op("Add", {acc, b.cst("k" + std::to_string(i), Constant::from_floats({1}, {1.0f}))}, DType::Float32, {1});
  b.output(acc);
  FoldOptions o;
  o.max_rewrites = 2;
  auto r = fold_and_simplify(b.g, o);
  EXPECT_TRUE(r.rewrite_cap_reached);
  EXPECT_EQ(b.nodes().size(), 3u);
}

}  // namespace
}  // namespace kiln
