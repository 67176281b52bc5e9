// The QDQ rewrite (quant/qdq_rewrite.h) on hand-built IR graphs: which integer ops
// it makes, their attributes (zero points, requantization scales, clamps, pads),
// the weight layouts it writes (OHWI, [KH,KW,Cout], FC columns in NHWC order), the
// Transposes it leaves, and the reason it gives for every op that stays float.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "../support/expect_contains.h"
#include "../support/graph_builder.h"
#include "fold/fold.h"
#include "ir/kiln_ops.h"
#include "quant/layout.h"
#include "quant/onnx_lookup.h"
#include "quant/qdq_rewrite.h"

namespace kiln {
namespace {

using quant::QdqReport;

struct Q : test_support::GraphBuilder {
  int serial = 0;
  std::string fresh(const std::string& p) { return p + std::to_string(serial++); }

  Value* input8(const std::string& n, Shape s, DType dt = DType::Int8) {
    Value* v = g.add_value(n, dt, std::move(s));
    v->is_graph_input = true;
    g.inputs.push_back(v);
    return v;
  }
  Value* scalar_f(float x) {
    Value* v = g.add_value(fresh("s"), DType::Float32, {});
    v->constant = Constant::from_floats({}, {x});
    return v;
  }
  Value* scalar_q(int zp, DType dt = DType::Int8) {
    Value* v = g.add_value(fresh("zp"), dt, {});
    v->constant = Constant::from_doubles(dt, {}, {double(zp)});
    return v;
  }
  Value* dq(Value* q, float s, int zp) {
    Value* f = g.add_value(fresh(q->name + "_dq"), DType::Float32, q->shape);
    op("DequantizeLinear", fresh("dq"), {q, scalar_f(s), scalar_q(zp, q->dtype)}, {f});
    return f;
  }
  Value* quantize(Value* f, float s, int zp, DType dt = DType::Int8) {
    Value* q = g.add_value(fresh(f->name + "_q"), dt, f->shape);
    op("QuantizeLinear", fresh("q"), {f, scalar_f(s), scalar_q(zp, dt)}, {q});
    return q;
  }
  // int8 weights with distinct values (i * 37 mod 255 - 127), dequantized per
  // slice of `axis` with the given scales (one: per tensor).
  Value* weights(const std::string& n, Shape s, std::vector<float> scales, int64_t axis = 0) {
    std::vector<double> w(size_t(shape_elements(s)));
    for (size_t i = 0; i < w.size(); ++i) w[i] = double(int64_t(i * 37 % 255) - 127);
    Value* q = g.add_value(n + "_q", DType::Int8, s);
    q->constant = Constant::from_doubles(DType::Int8, s, w);
    Value* sc = g.add_value(fresh(n + "_scale"), DType::Float32, {int64_t(scales.size())});
    sc->constant = Constant::from_floats({int64_t(scales.size())}, scales);
    if (scales.size() == 1) sc->constant = Constant::from_floats({}, scales), sc->shape = {};
    Value* f = g.add_value(n, DType::Float32, s);
    Node* d = op("DequantizeLinear", fresh("dqw"), {q, sc}, {f});
    d->attrs["axis"] = axis;
    return f;
  }
  Value* bias(const std::string& n, std::vector<double> b, float scale) {
    Value* q = g.add_value(n + "_q", DType::Int32, {int64_t(b.size())});
    q->constant = Constant::from_doubles(DType::Int32, {int64_t(b.size())}, b);
    Value* f = g.add_value(n, DType::Float32, {int64_t(b.size())});
    op("DequantizeLinear", fresh("dqb"), {q, scalar_f(scale)}, {f});
    return f;
  }
  Node* conv(const std::string& name, Value* x, Value* w, Value* b, Shape out, int64_t group = 1,
             std::vector<int64_t> pads = {1, 1, 1, 1}) {
    Value* y = val(name + "_y", out);
    std::vector<Value*> ins{x, w};
    if (b) ins.push_back(b);
    Node* n = op("Conv", name, ins, {y});
    n->attrs["pads"] = pads;
    n->attrs["group"] = group;
    return n;
  }
  QdqReport rewrite(std::function<bool(const std::string&)> has = {}) {
    quant::QdqOptions o;
    o.has_kernel = std::move(has);
    return quant::rewrite_quantized_graph(g, o);
  }
  std::vector<const Node*> all(const std::string& op_type) const {
    std::vector<const Node*> r;
    for (const auto& n : g.nodes)
      if (n->op_type == op_type) r.push_back(n.get());
    return r;
  }
  const Node* one(const std::string& op_type) const {
    auto r = all(op_type);
    EXPECT_EQ(r.size(), 1u) << op_type;
    return r.empty() ? nullptr : r[0];
  }
  std::string ops() const {
    std::string s;
    for (const auto& n : g.nodes) s += (s.empty() ? "" : " ") + n->op_type;
    return s;
  }
};

double requant(float x, float w, float y) { return double(x) * double(w) / double(y); }

// ---- conv -----------------------------------------------------------------------

// (The input is NCHW int8: the conv reads it as it is, quant/boundary_layout.h.)
TEST(QdqRewrite, ConvBecomesNhwcIntegerConvWithOhwiWeightsBiasAndReluClamp) {
  Q b;
  Value* x = b.input8("x", {1, 3, 5, 5});
  Value* w = b.weights("w", {4, 3, 3, 3}, {0.01f, 0.02f, 0.03f, 0.04f});
  Value* bias = b.bias("b", {10, -20, 30, -40}, 0.5f * 0.01f);  // only channel 0 in accumulator units
  Node* c = b.conv("conv", b.dq(x, 0.5f, 3), w, bias, {1, 4, 5, 5});
  Value* r = b.val("r", {1, 4, 5, 5});
  b.op("Relu", "relu", {c->outputs[0]}, {r});
  b.output(b.quantize(r, 0.25f, -5));
  const ConstantPtr w_before = w->producer->inputs[0]->constant;  // the rewrite drops w's DQ
  QdqReport rep = b.rewrite();

  EXPECT_EQ(b.ops(), "KilnQConv2D Transpose");
  const Node* q = b.one("KilnQConv2D");
  ASSERT_TRUE(q);
  EXPECT_EQ(q->inputs[0], x);
  EXPECT_EQ(q->attr_int("input_nchw", 0), 1);
  EXPECT_EQ(q->outputs[0]->shape, (Shape{1, 5, 5, 4}));
  EXPECT_EQ(q->attr_int("x_zero_point", 0), 3);
  EXPECT_EQ(q->attr_int("y_zero_point", 0), -5);
  EXPECT_EQ(q->attr_int("act_min", 0), -5);  // Relu: real 0 is the zero point
  EXPECT_EQ(q->attr_int("act_max", 0), 127);
  EXPECT_EQ(q->attr_int("group", 0), 1);
  EXPECT_EQ(q->attr_ints("pads"), (std::vector<int64_t>{1, 1, 1, 1}));
  EXPECT_EQ(q->attr_ints("strides"), (std::vector<int64_t>{1, 1}));
  const auto rs = q->attr_floats("requant_scale");
  ASSERT_EQ(rs.size(), 4u);
  const float ws[4] = {0.01f, 0.02f, 0.03f, 0.04f};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(rs[size_t(i)], requant(0.5f, ws[i], 0.25f));
  // OHWI: w'[o][h][w][i] = w[o][i][h][w].
  const Constant& wq = *q->inputs[1]->constant;
  const Constant& wo = *w_before;
  EXPECT_EQ(wq.dtype(), DType::Int8);
  ASSERT_EQ(wq.shape(), (Shape{4, 3, 3, 3}));
  for (int o = 0; o < 4; ++o)
    for (int i = 0; i < 3; ++i)
      for (int h = 0; h < 3; ++h)
        for (int ww = 0; ww < 3; ++ww)
          ASSERT_EQ(wq.as_int64(((o * 3 + h) * 3 + ww) * 3 + i), wo.as_int64(((o * 3 + i) * 3 + h) * 3 + ww));
  // Bias in accumulator units x_scale * w_scale[c]; channel 0 as given, the others rescaled.
  const Constant& bq = *q->inputs[2]->constant;
  EXPECT_EQ(bq.dtype(), DType::Int32);
  EXPECT_EQ(bq.as_int64(0), 10);
  EXPECT_EQ(bq.as_int64(1), -10);  // -20 * 0.005 / (0.5 * 0.02)
  EXPECT_EQ(bq.as_int64(2), 10);   // 30 * 0.005 / 0.015
  EXPECT_EQ(bq.as_int64(3), -10);
  EXPECT_EQ(rep.integer_ops["KilnQConv2D"], 1);
  EXPECT_TRUE(rep.float_ops.empty());
  EXPECT_EQ(rep.boundary_quantize + rep.boundary_dequantize, 0);
}

TEST(QdqRewrite, Relu6ClipIsTheClampInTheOutputDomain) {
  Q b;
  Value* x = b.input8("x", {1, 2, 4, 4});
  Node* c = b.conv("conv", b.dq(x, 0.1f, 0), b.weights("w", {2, 2, 1, 1}, {0.1f}), nullptr, {1, 2, 4, 4}, 1,
                   {0, 0, 0, 0});
  Value* r = b.val("r", {1, 2, 4, 4});
  b.op("Clip", "relu6", {c->outputs[0], b.scalar_f(0.f), b.scalar_f(6.f)}, {r});
  b.output(b.quantize(r, 0.05f, -100));
  b.rewrite();
  const Node* q = b.one("KilnQConv2D");
  ASSERT_TRUE(q);
  EXPECT_EQ(q->attr_int("act_min", 0), -100);
  EXPECT_EQ(q->attr_int("act_max", 0), 20);  // -100 + 6 / 0.05
  EXPECT_EQ(q->attr_floats("requant_scale").size(), 1u);  // per-tensor weights: one scale
  EXPECT_EQ(q->inputs.size(), 2u);                        // no bias
}

TEST(QdqRewrite, DepthwiseConvGetsKhKwCoutWeightsAndDepthMultiplier) {
  Q b;
  Value* x = b.input8("x", {1, 3, 6, 6});
  Value* w = b.weights("w", {6, 1, 3, 3}, {0.02f});
  Node* c = b.conv("dw", b.dq(x, 0.1f, 0), w, nullptr, {1, 6, 3, 3}, 3, {1, 1, 1, 1});
  c->attrs["strides"] = std::vector<int64_t>{2, 2};
  b.output(b.quantize(c->outputs[0], 0.2f, 1));
  const ConstantPtr w_before = w->producer->inputs[0]->constant;
  b.rewrite();
  const Node* q = b.one("KilnQDepthwiseConv2D");
  ASSERT_TRUE(q);
  EXPECT_EQ(q->attr_int("depth_multiplier", 0), 2);
  EXPECT_FALSE(q->has_attr("group"));
  EXPECT_EQ(q->attr_ints("strides"), (std::vector<int64_t>{2, 2}));
  const Constant& wq = *q->inputs[1]->constant;
  const Constant& wo = *w_before;
  ASSERT_EQ(wq.shape(), (Shape{3, 3, 6}));
  for (int o = 0; o < 6; ++o)
    for (int k = 0; k < 9; ++k) ASSERT_EQ(wq.as_int64(k * 6 + o), wo.as_int64(o * 9 + k));
}

TEST(QdqRewrite, GroupedConvKeepsItsGroupsInOhwi) {
  Q b;
  Value* x = b.input8("x", {1, 4, 3, 3});
  Node* c = b.conv("g", b.dq(x, 0.1f, 0), b.weights("w", {4, 2, 1, 1}, {0.02f}), nullptr, {1, 4, 3, 3}, 2,
                   {0, 0, 0, 0});
  b.output(b.quantize(c->outputs[0], 0.2f, 0));
  b.rewrite();
  const Node* q = b.one("KilnQConv2D");
  ASSERT_TRUE(q);
  EXPECT_EQ(q->attr_int("group", 0), 2);
  EXPECT_EQ(q->inputs[1]->shape, (Shape{4, 1, 1, 2}));
}

TEST(QdqRewrite, SameUpperAutoPadBecomesExplicitPads) {
  Q b;
  Value* x = b.input8("x", {1, 1, 5, 5});
  Node* c = b.conv("c", b.dq(x, 0.1f, 0), b.weights("w", {1, 1, 4, 4}, {0.02f}), nullptr, {1, 1, 3, 3});
  c->attrs.erase("pads");
  c->attrs["auto_pad"] = std::string("SAME_UPPER");
  c->attrs["strides"] = std::vector<int64_t>{2, 2};
  b.output(b.quantize(c->outputs[0], 0.2f, 0));
  b.rewrite();
  const Node* q = b.one("KilnQConv2D");
  ASSERT_TRUE(q);
  // out 3, total pad (3-1)*2 + 4 - 5 = 3: upper puts the extra one at the end.
  EXPECT_EQ(q->attr_ints("pads"), (std::vector<int64_t>{1, 1, 2, 2}));
}

// ---- layout -----------------------------------------------------------------------

TEST(QdqRewrite, ConvChainKeepsOneTransposeAtEachEndAndUnitChannelsNeedNone) {
  Q b;
  Value* x = b.input8("x", {1, 1, 8, 8});  // one channel: NCHW -> NHWC moves no byte
  Node* c1 = b.conv("c1", b.dq(x, 0.1f, 0), b.weights("w1", {4, 1, 3, 3}, {0.02f}), nullptr, {1, 4, 8, 8});
  Value* y1 = b.quantize(c1->outputs[0], 0.2f, 0);
  Node* c2 = b.conv("c2", b.dq(y1, 0.2f, 0), b.weights("w2", {4, 4, 3, 3}, {0.02f}), nullptr, {1, 4, 8, 8});
  Value* y2 = b.quantize(c2->outputs[0], 0.2f, 0);
  Node* c3 = b.conv("c3", b.dq(y2, 0.2f, 0), b.weights("w3", {4, 1, 3, 3}, {0.02f}), nullptr, {1, 4, 8, 8}, 4);
  b.output(b.quantize(c3->outputs[0], 0.2f, 0));
  QdqReport rep = b.rewrite();
  EXPECT_EQ(b.ops(), "Reshape KilnQConv2D KilnQConv2D KilnQDepthwiseConv2D Transpose");
  EXPECT_EQ(rep.transposes, 1);
  EXPECT_EQ(b.one("Transpose")->attr_ints("perm"), quant::kToNchw);
}

// ---- the layout at the boundary (quant/boundary_layout.h) ------------------------

// conv(x) for an NCHW int8 input x [1, 3, 6, 6]: 4 output channels, or with a
// group 2 per group.
Node* nchw_conv(Q& b, Value* x, const std::string& name, int64_t group = 1) {
  const int64_t out_c = group == 1 ? 4 : 2 * group;
  return b.conv(name, b.dq(x, 0.1f, 2), b.weights(name + "_w", {out_c, 3 / group, 3, 3}, {0.02f}), nullptr,
                {1, out_c, 6, 6}, group);
}

TEST(QdqRewrite, AnNchwInputIsReadByTheFirstConvWithNoTranspose) {
  Q b;
  Value* x = b.input8("x", {1, 3, 6, 6});
  Node* c = nchw_conv(b, x, "c1");
  Value* y1 = b.quantize(c->outputs[0], 0.2f, 0);
  Node* c2 = b.conv("c2", b.dq(y1, 0.2f, 0), b.weights("w2", {4, 4, 3, 3}, {0.02f}), nullptr, {1, 4, 6, 6});
  b.output(b.quantize(c2->outputs[0], 0.2f, 0));
  QdqReport rep = b.rewrite();
  // Only the output's Transpose is left (NHWC -> the model's NCHW output).
  EXPECT_EQ(b.ops(), "KilnQConv2D KilnQConv2D Transpose");
  EXPECT_EQ(rep.transposes, 1);
  EXPECT_EQ(rep.absorbed_transposes, 1);
  const auto convs = b.all("KilnQConv2D");
  ASSERT_EQ(convs.size(), 2u);
  EXPECT_EQ(convs[0]->inputs[0], x);
  EXPECT_EQ(convs[0]->attr_int("input_nchw", 0), 1);
  EXPECT_EQ(convs[0]->outputs[0]->shape, (Shape{1, 6, 6, 4}));  // the output stays NHWC
  EXPECT_EQ(convs[1]->attr_int("input_nchw", 0), 0);
  EXPECT_FALSE(ops::verify_node(*convs[0]).has_value());
  EXPECT_CONTAINS(quant::qdq_report_summary(rep), "1 conv input read in NCHW");
}

TEST(QdqRewrite, ATransposeWithAReaderThatCannotReadNchwStaysForThatReader) {
  Q b;
  Value* x = b.input8("x", {1, 3, 6, 6});
  Node* c = nchw_conv(b, x, "c");  // reads x in NCHW
  Value* p = b.val("p", {1, 3, 6, 6});
  Node* pool = b.op("MaxPool", "pool", {b.dq(x, 0.1f, 2)}, {p});  // a pool reads NHWC only
  pool->attrs["kernel_shape"] = std::vector<int64_t>{1, 1};
  Node* g = nchw_conv(b, x, "g", 3);  // depthwise (3 groups of 3 channels) reads NHWC only
  b.output(b.quantize(c->outputs[0], 0.2f, 0));
  b.output(b.quantize(p, 0.1f, 2));
  b.output(b.quantize(g->outputs[0], 0.2f, 0));
  QdqReport rep = b.rewrite();
  EXPECT_EQ(rep.absorbed_transposes, 1);
  const Node* conv = nullptr;
  for (const Node* n : b.all("KilnQConv2D"))
    if (n->attr_int("group", 1) == 1) conv = n;
  ASSERT_TRUE(conv);
  EXPECT_EQ(conv->inputs[0], x);
  for (const char* op : {"KilnQDepthwiseConv2D", "KilnQMaxPool2D"}) {
    const Node* n = b.one(op);
    ASSERT_TRUE(n);
    ASSERT_TRUE(n->inputs[0]->producer) << op;
    EXPECT_EQ(n->inputs[0]->producer->op_type, "Transpose") << op;
    EXPECT_EQ(n->inputs[0]->producer->inputs[0], x) << op;
  }
}

TEST(QdqRewrite, AConvWhoseLoweringRefusesNchwKeepsTheTranspose) {
  Q b;
  Value* x = b.input8("x", {1, 3, 6, 6});
  Node* c = nchw_conv(b, x, "c");
  b.output(b.quantize(c->outputs[0], 0.2f, 0));
  quant::QdqOptions o;
  int asked = 0;
  o.refuses = [&](const Node& n) -> std::optional<std::string> {
    if (n.attr_int("input_nchw", 0) == 0) return std::nullopt;
    ++asked;
    return std::string("no NCHW form here");
  };
  QdqReport rep = quant::rewrite_quantized_graph(b.g, o);
  EXPECT_EQ(asked, 1);
  EXPECT_EQ(rep.absorbed_transposes, 0);
  EXPECT_EQ(b.ops(), "Transpose KilnQConv2D Transpose");
  const Node* q = b.one("KilnQConv2D");
  ASSERT_TRUE(q);
  EXPECT_EQ(q->inputs[0]->shape, (Shape{1, 6, 6, 3}));
  EXPECT_EQ(q->attr_int("input_nchw", 0), 0);
}

TEST(QdqRewrite, AnNchwConvBreaksItsDefinitionWithAGroupOrTheWrongChannels) {
  Q b;
  Value* x = b.input8("x", {1, 3, 6, 6});
  b.output(b.quantize(nchw_conv(b, x, "c")->outputs[0], 0.2f, 0));
  b.rewrite();
  Node* q = const_cast<Node*>(b.one("KilnQConv2D"));
  ASSERT_TRUE(q);
  EXPECT_FALSE(ops::verify_node(*q).has_value());
  q->attrs["input_nchw"] = int64_t(0);  // x [1, 3, 6, 6] read as NHWC has 6 channels
  EXPECT_TRUE(ops::verify_node(*q).has_value());
  q->attrs["input_nchw"] = int64_t(2);
  EXPECT_CONTAINS(ops::verify_node(*q).value_or(""), "input_nchw must be 0 or 1");
}

TEST(QdqRewrite, ResidualAddRunsInNhwcWithoutTransposes) {
  Q b;
  Value* x = b.input8("x", {1, 4, 4, 4});
  Node* c1 = b.conv("c1", b.dq(x, 0.1f, 0), b.weights("w1", {4, 4, 3, 3}, {0.02f}), nullptr, {1, 4, 4, 4});
  Value* y1 = b.quantize(c1->outputs[0], 0.2f, 0);
  Node* c2 = b.conv("c2", b.dq(y1, 0.2f, 0), b.weights("w2", {4, 4, 3, 3}, {0.02f}), nullptr, {1, 4, 4, 4});
  Value* y2 = b.quantize(c2->outputs[0], 0.3f, 1);
  Value* s = b.val("sum", {1, 4, 4, 4});
  b.op("Add", "add", {b.dq(y1, 0.2f, 0), b.dq(y2, 0.3f, 1)}, {s});
  Value* r = b.val("r", {1, 4, 4, 4});
  b.op("Relu", "relu", {s}, {r});
  Value* y3 = b.quantize(r, 0.4f, -3);
  Node* c3 = b.conv("c3", b.dq(y3, 0.4f, -3), b.weights("w3", {4, 4, 3, 3}, {0.02f}), nullptr, {1, 4, 4, 4});
  b.output(b.quantize(c3->outputs[0], 0.2f, 0));
  QdqReport rep = b.rewrite();
  // The input's Transpose is absorbed by c1, which reads x in NCHW (boundary_layout.h).
  EXPECT_EQ(b.ops(), "KilnQConv2D KilnQConv2D KilnQAdd KilnQConv2D Transpose");
  const Node* add = b.one("KilnQAdd");
  ASSERT_TRUE(add);
  EXPECT_EQ(add->attr_float("a_scale", 0), double(0.2f));
  EXPECT_EQ(add->attr_float("b_scale", 0), double(0.3f));
  EXPECT_EQ(add->attr_int("b_zero_point", 0), 1);
  EXPECT_EQ(add->attr_float("y_scale", 0), double(0.4f));
  EXPECT_EQ(add->attr_int("act_min", 0), -3);
  EXPECT_EQ(add->outputs[0]->shape, (Shape{1, 4, 4, 4}));
  EXPECT_EQ(add->inputs[0]->producer->op_type, "KilnQConv2D");
  EXPECT_EQ(add->inputs[1]->producer->op_type, "KilnQConv2D");
  EXPECT_EQ(rep.transposes, 1);
}

TEST(QdqRewrite, FlattenBeforeFullyConnectedPermutesTheWeightColumns) {
  Q b;
  Value* x = b.input8("x", {1, 2, 3, 3});
  Node* c = b.conv("c", b.dq(x, 0.1f, 0), b.weights("wc", {2, 2, 1, 1}, {0.02f}), nullptr, {1, 2, 3, 3}, 1,
                   {0, 0, 0, 0});
  Value* y = b.quantize(c->outputs[0], 0.2f, 0);
  Value* flat = b.val("flat", {1, 18});
  Node* fl = b.op("Flatten", "flatten", {b.dq(y, 0.2f, 0)}, {flat});
  fl->attrs["axis"] = int64_t(1);
  Value* w = b.weights("wf", {5, 18}, {0.03f});
  Value* g = b.val("gemm", {1, 5});
  Node* gemm = b.op("Gemm", "fc", {flat, w, b.bias("bf", {1, 2, 3, 4, 5}, 0.2f * 0.03f)}, {g});
  gemm->attrs["transB"] = int64_t(1);
  b.output(b.quantize(g, 0.5f, 2));
  const ConstantPtr w_before = w->producer->inputs[0]->constant;
  QdqReport rep = b.rewrite();
  EXPECT_EQ(b.ops(), "KilnQConv2D Reshape KilnQFullyConnected");  // the conv reads x in NCHW
  EXPECT_EQ(rep.transposes, 0);
  const Node* fc = b.one("KilnQFullyConnected");
  ASSERT_TRUE(fc);
  EXPECT_EQ(fc->attr_floats("requant_scale"), (std::vector<double>{requant(0.2f, 0.03f, 0.5f)}));
  EXPECT_EQ(fc->attr_int("x_zero_point", 9), 0);
  EXPECT_EQ(fc->attr_int("y_zero_point", 0), 2);
  EXPECT_EQ(fc->inputs[2]->constant->to_int64s(), (std::vector<int64_t>{1, 2, 3, 4, 5}));
  // The FC reads the NHWC bytes: column (h*3+w)*2+c holds the NCHW column c*9+h*3+w.
  const Constant& wq = *fc->inputs[1]->constant;
  const Constant& wo = *w_before;
  ASSERT_EQ(wq.shape(), (Shape{5, 18}));
  for (int n = 0; n < 5; ++n)
    for (int ch = 0; ch < 2; ++ch)
      for (int hw = 0; hw < 9; ++hw) ASSERT_EQ(wq.as_int64(n * 18 + hw * 2 + ch), wo.as_int64(n * 18 + ch * 9 + hw));
}

TEST(QdqRewrite, MatMulWeightsAreTransposedToNoutK) {
  Q b;
  Value* x = b.input8("x", {2, 3});
  Value* w = b.weights("w", {3, 4}, {0.1f, 0.2f, 0.3f, 0.4f}, 1);
  Value* m = b.val("m", {2, 4});
  b.op("MatMul", "mm", {b.dq(x, 0.5f, 1), w}, {m});
  b.output(b.quantize(m, 0.25f, 0));
  const ConstantPtr w_before = w->producer->inputs[0]->constant;
  b.rewrite();
  const Node* fc = b.one("KilnQFullyConnected");
  ASSERT_TRUE(fc);
  EXPECT_EQ(fc->attr_floats("requant_scale").size(), 4u);
  const Constant& wq = *fc->inputs[1]->constant;
  const Constant& wo = *w_before;
  ASSERT_EQ(wq.shape(), (Shape{4, 3}));
  for (int n = 0; n < 4; ++n)
    for (int k = 0; k < 3; ++k) EXPECT_EQ(wq.as_int64(n * 3 + k), wo.as_int64(k * 4 + n));
}

// ---- element-wise, pools, softmax ------------------------------------------------

TEST(QdqRewrite, SigmoidBecomesALookupTableWithOnnxRounding) {
  Q b;
  Value* x = b.input8("x", {1, 8});
  Value* s = b.val("sig", {1, 8});
  b.op("Sigmoid", "sigmoid", {b.dq(x, 0.05f, 10)}, {s});
  b.output(b.quantize(s, 1.f / 256.f, -128));
  b.rewrite();
  const Node* l = b.one("KilnQLookup");
  ASSERT_TRUE(l);
  const Constant& t = *l->inputs[1]->constant;
  ASSERT_EQ(t.shape(), (Shape{256}));
  for (int i = 0; i < 256; i += 17) {
    const float real = float((i - 128) - 10) * 0.05f;
    const float y = 1.f / (1.f + std::exp(-real));
    const double q = std::clamp(double(std::nearbyint(y / (1.f / 256.f))) - 128, -128.0, 127.0);
    EXPECT_EQ(t.as_int64(i), int64_t(q)) << i;
  }
  EXPECT_EQ(t.as_int64(128 + 10), 0);     // sigmoid(0) = 0.5 -> 128 - 128
  EXPECT_EQ(t.as_int64(255), 127);        // saturates
}

TEST(QdqRewrite, LookupTableRoundsHalfToEven) {
  // in: real = q * 0.5; out scale 1: 0.5 -> 0, 1.5 -> 2, 2.5 -> 2, -0.5 -> 0
  auto t = quant::onnx_lookup_table([](float v) { return v; }, {0.5f, 0}, {1.f, 0});
  EXPECT_EQ(t->as_int64(128 + 1), 0);
  EXPECT_EQ(t->as_int64(128 + 3), 2);
  EXPECT_EQ(t->as_int64(128 + 5), 2);
  EXPECT_EQ(t->as_int64(128 - 1), 0);
  EXPECT_EQ(t->as_int64(128 - 3), -2);
}

TEST(QdqRewrite, SoftmaxBecomesKilnQSoftmax) {
  Q b;
  Value* x = b.input8("x", {1, 10});
  Value* s = b.val("sm", {1, 10});
  b.op("Softmax", "softmax", {b.dq(x, 0.125f, 4)}, {s});
  b.output(b.quantize(s, 1.f / 256.f, -128));
  b.rewrite();
  const Node* q = b.one("KilnQSoftmax");
  ASSERT_TRUE(q);
  EXPECT_EQ(q->attr_float("beta", 0), 1.0);
  EXPECT_EQ(q->attr_float("x_scale", 0), 0.125);
}

TEST(QdqRewrite, SoftmaxWithAnotherOutputScaleStaysFloatAndSaysWhy) {
  Q b;
  Value* x = b.input8("x", {1, 10});
  Value* s = b.val("sm", {1, 10});
  b.op("Softmax", "softmax", {b.dq(x, 0.125f, 4)}, {s});
  b.output(b.quantize(s, 1.f / 255.f, -128));
  QdqReport rep = b.rewrite();
  ASSERT_EQ(rep.float_ops.size(), 1u);
  EXPECT_EQ(rep.float_ops[0].node, "Softmax 'softmax'");
  EXPECT_CONTAINS(rep.float_ops[0].reason, "scale 1/256");
  EXPECT_EQ(rep.boundary_dequantize, 1);
  EXPECT_EQ(rep.boundary_quantize, 1);
}

TEST(QdqRewrite, PoolsBecomeNhwcPoolsAndADifferentOutputScaleAddsALookup) {
  Q b;
  Value* x = b.input8("x", {1, 4, 6, 6});
  Value* m = b.val("max", {1, 4, 3, 3});
  Node* mp = b.op("MaxPool", "maxpool", {b.dq(x, 0.1f, 0)}, {m});
  mp->attrs["kernel_shape"] = std::vector<int64_t>{2, 2};
  mp->attrs["strides"] = std::vector<int64_t>{2, 2};
  Value* y = b.quantize(m, 0.2f, 0);  // another scale: pool, then requantize
  Value* a = b.val("avg", {1, 4, 1, 1});
  b.op("GlobalAveragePool", "gap", {b.dq(y, 0.2f, 0)}, {a});
  b.output(b.quantize(a, 0.2f, 0));
  QdqReport rep = b.rewrite();
  EXPECT_EQ(b.ops(), "Transpose KilnQMaxPool2D KilnQLookup KilnQAvgPool2D Reshape");
  const Node* avg = b.one("KilnQAvgPool2D");
  ASSERT_TRUE(avg);
  EXPECT_EQ(avg->attr_ints("kernel_shape"), (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(avg->attr_ints("pads"), (std::vector<int64_t>{0, 0, 0, 0}));
  EXPECT_EQ(b.one("KilnQMaxPool2D")->attr_ints("strides"), (std::vector<int64_t>{2, 2}));
  EXPECT_TRUE(rep.float_ops.empty());
}

TEST(QdqRewrite, GlobalMaxPoolIsAMaxPoolOverTheWholeMap) {
  Q b;
  Value* x = b.input8("x", {1, 3, 5, 4});
  Value* m = b.val("gmp", {1, 3, 1, 1});
  b.op("GlobalMaxPool", "gmp", {b.dq(x, 0.1f, 2)}, {m});
  b.output(b.quantize(m, 0.1f, 2));
  b.rewrite();
  const Node* p = b.one("KilnQMaxPool2D");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->attr_ints("kernel_shape"), (std::vector<int64_t>{5, 4}));
  EXPECT_EQ(p->attr_ints("strides"), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(p->attr_int("act_min", 0), -128);
}

TEST(QdqRewrite, AveragePoolCountingPaddingStaysFloat) {
  Q b;
  Value* x = b.input8("x", {1, 4, 4, 4});
  Value* a = b.val("avg", {1, 4, 4, 4});
  Node* p = b.op("AveragePool", "avg", {b.dq(x, 0.1f, 0)}, {a});
  p->attrs["kernel_shape"] = std::vector<int64_t>{3, 3};
  p->attrs["pads"] = std::vector<int64_t>{1, 1, 1, 1};
  p->attrs["count_include_pad"] = int64_t(1);
  b.output(b.quantize(a, 0.1f, 0));
  QdqReport rep = b.rewrite();
  ASSERT_EQ(rep.float_ops.size(), 1u);
  EXPECT_CONTAINS(rep.float_ops[0].reason, "count_include_pad");
}

TEST(QdqRewrite, ConcatRequantizesTheInputsQuantizedDifferently) {
  Q b;
  Value* x1 = b.input8("x1", {1, 4});
  Value* x2 = b.input8("x2", {1, 4});
  Value* c = b.val("cat", {1, 8});
  Node* n = b.op("Concat", "cat", {b.dq(x1, 0.1f, 0), b.dq(x2, 0.3f, 5)}, {c});
  n->attrs["axis"] = int64_t(1);
  b.output(b.quantize(c, 0.1f, 0));
  b.rewrite();
  EXPECT_EQ(b.ops(), "KilnQLookup Concat");
  const Node* cat = b.one("Concat");
  ASSERT_TRUE(cat);
  EXPECT_EQ(cat->inputs[0], x1);
  EXPECT_EQ(cat->inputs[1]->producer->inputs[0], x2);
  EXPECT_EQ(cat->outputs[0]->dtype, DType::Int8);
}

TEST(QdqRewrite, DataMovementRunsOnInt8AndEqualRequantizationDisappears) {
  Q b;
  Value* x = b.input8("x", {1, 2, 3});
  Value* r = b.val("r", {6});
  b.op("Reshape", "reshape", {b.dq(x, 0.1f, 2), b.i64("shape", {6})}, {r});
  Value* y = b.quantize(r, 0.1f, 2);
  Value* r2 = b.val("r2", {6});
  b.op("Identity", "id", {b.dq(y, 0.1f, 2)}, {r2});
  b.output(b.quantize(r2, 0.2f, 0));
  b.rewrite();
  EXPECT_EQ(b.ops(), "Reshape Identity KilnQLookup");
  EXPECT_EQ(b.one("Reshape")->inputs[0], x);
}

// ---- uint8 ------------------------------------------------------------------------

TEST(QdqRewrite, Uint8ActivationsBecomeInt8WithZeroPointMinus128) {
  Q b;
  Value* x = b.input("x", {1, 2, 3, 3});
  Value* xq = b.quantize(x, 0.1f, 128, DType::UInt8);
  Node* c = b.conv("c", b.dq(xq, 0.1f, 128), b.weights("w", {2, 2, 1, 1}, {0.02f}), nullptr, {1, 2, 3, 3}, 1,
                   {0, 0, 0, 0});
  Value* yq = b.quantize(c->outputs[0], 0.2f, 130, DType::UInt8);
  Value* y = b.dq(yq, 0.2f, 130);
  b.output(y);
  QdqReport rep = b.rewrite();
  EXPECT_EQ(b.ops(), "QuantizeLinear KilnQConv2D Transpose DequantizeLinear");
  const Node* q = b.one("KilnQConv2D");
  ASSERT_TRUE(q);
  EXPECT_EQ(q->attr_int("x_zero_point", 0), 0);
  EXPECT_EQ(q->attr_int("y_zero_point", 0), 2);
  EXPECT_EQ(xq->dtype, DType::Int8);
  EXPECT_EQ(b.one("QuantizeLinear")->inputs[2]->constant->as_int64(0), 0);
  EXPECT_EQ(b.one("DequantizeLinear")->inputs[2]->constant->as_int64(0), 2);
  EXPECT_EQ(rep.boundary_quantize, 1);
}

TEST(QdqRewrite, Uint8WeightsWithZeroPoint128AreSymmetricInt8) {
  Q b;
  Value* x = b.input8("x", {1, 2, 3, 3});
  Value* wq = b.g.add_value("wq", DType::UInt8, {2, 2, 1, 1});
  wq->constant = Constant::from_doubles(DType::UInt8, {2, 2, 1, 1}, {0, 128, 200, 255});
  Value* ws = b.g.add_value("ws", DType::Float32, {2});
  ws->constant = Constant::from_floats({2}, {0.1f, 0.2f});
  Value* wz = b.g.add_value("wz", DType::UInt8, {2});
  wz->constant = Constant::from_doubles(DType::UInt8, {2}, {128, 128});
  Value* w = b.val("w", {2, 2, 1, 1});
  b.op("DequantizeLinear", "dqw", {wq, ws, wz}, {w})->attrs["axis"] = int64_t(0);
  Node* c = b.conv("c", b.dq(x, 0.1f, 0), w, nullptr, {1, 2, 3, 3}, 1, {0, 0, 0, 0});
  b.output(b.quantize(c->outputs[0], 0.2f, 0));
  QdqReport rep = b.rewrite();
  const Node* q = b.one("KilnQConv2D");
  ASSERT_TRUE(q);
  EXPECT_EQ(q->inputs[1]->constant->to_int64s(), (std::vector<int64_t>{-128, 0, 72, 127}));
  EXPECT_EQ(q->attr_floats("requant_scale").size(), 2u);
  EXPECT_TRUE(rep.float_ops.empty());
}

TEST(QdqRewrite, Uint8WeightsWithoutZeroPointAreAsymmetricAndStayFloat) {
  Q b;
  Value* x = b.input8("x", {1, 2, 3, 3});
  Value* wq = b.g.add_value("wq", DType::UInt8, {2, 2, 1, 1});
  wq->constant = Constant::from_doubles(DType::UInt8, {2, 2, 1, 1}, {0, 128, 200, 255});
  Value* ws = b.g.add_value("ws", DType::Float32, {2});
  ws->constant = Constant::from_floats({2}, {0.1f, 0.2f});
  Value* w = b.val("w", {2, 2, 1, 1});
  b.op("DequantizeLinear", "dqw", {wq, ws}, {w})->attrs["axis"] = int64_t(0);
  Node* c = b.conv("c", b.dq(x, 0.1f, 0), w, nullptr, {1, 2, 3, 3}, 1, {0, 0, 0, 0});
  b.output(b.quantize(c->outputs[0], 0.2f, 0));
  QdqReport rep = b.rewrite();
  ASSERT_EQ(rep.float_ops.size(), 1u);
  EXPECT_CONTAINS(rep.float_ops[0].reason, "asymmetric (zero point -128)");
  // The weights' DQ now reads int8 with a zero point per channel, as its scale is.
  const Node* dqw = w->producer;
  ASSERT_TRUE(dqw);
  EXPECT_EQ(dqw->inputs[0]->dtype, DType::Int8);
  EXPECT_EQ(dqw->inputs[2]->shape, (Shape{2}));
}

TEST(QdqRewrite, Uint8GraphInputGetsAnExactFloatBoundaryPair) {
  Q b;
  Value* x = b.input8("x", {1, 4}, DType::UInt8);
  Value* s = b.val("sig", {1, 4});
  b.op("Tanh", "tanh", {b.dq(x, 0.1f, 100)}, {s});
  b.output(b.quantize(s, 1.f / 128.f, 0));
  b.rewrite();
  EXPECT_EQ(b.ops(), "DequantizeLinear QuantizeLinear KilnQLookup");
  EXPECT_EQ(b.one("QuantizeLinear")->inputs[2]->constant->as_int64(0), -28);
}

// ---- what stays float ---------------------------------------------------------------

TEST(QdqRewrite, OpsWithoutAnIntegerGroupStayFloatWithTheirReason) {
  Q b;
  Value* x = b.input8("x", {1, 2, 3, 3});
  // Float weights.
  Node* c1 = b.conv("float_w", b.dq(x, 0.1f, 0), b.cst("wf", {2, 2, 1, 1}), nullptr, {1, 2, 3, 3}, 1, {0, 0, 0, 0});
  Value* y1 = b.quantize(c1->outputs[0], 0.2f, 0);
  // Asymmetric weights.
  Value* wq = b.g.add_value("wa_q", DType::Int8, {2, 2, 1, 1});
  wq->constant = Constant::from_doubles(DType::Int8, {2, 2, 1, 1}, {1, 2, 3, 4});
  Value* wa = b.val("wa", {2, 2, 1, 1});
  b.op("DequantizeLinear", "dqwa", {wq, b.scalar_f(0.1f), b.scalar_q(3)}, {wa});
  Node* c2 = b.conv("asym_w", b.dq(y1, 0.2f, 0), wa, nullptr, {1, 2, 3, 3}, 1, {0, 0, 0, 0});
  Value* y2 = b.quantize(c2->outputs[0], 0.2f, 0);
  // An op with no integer form.
  Value* e = b.val("erf", {1, 2, 3, 3});
  b.op("Erf", "erf", {b.dq(y2, 0.2f, 0)}, {e});
  Value* y3 = b.quantize(e, 0.2f, 0);
  // A conv whose kernel this build lacks.
  Node* c4 = b.conv("no_kernel", b.dq(y3, 0.2f, 0), b.weights("w4", {2, 2, 1, 1}, {0.1f}), nullptr, {1, 2, 3, 3}, 1,
                    {0, 0, 0, 0});
  b.output(b.quantize(c4->outputs[0], 0.2f, 0));
  QdqReport rep = b.rewrite([](const std::string& op) { return op != "KilnQConv2D"; });
  std::map<std::string, std::string> why;
  for (const auto& f : rep.float_ops) why[f.node] = f.reason;
  ASSERT_EQ(why.size(), 4u);
  EXPECT_CONTAINS(why["Conv 'float_w'"], "weights are float");
  EXPECT_CONTAINS(why["Conv 'asym_w'"], "asymmetric");
  EXPECT_CONTAINS(why["Erf 'erf'"], "no integer form of Erf");
  EXPECT_CONTAINS(why["Conv 'no_kernel'"], "no integer kernel for KilnQConv2D");
  EXPECT_TRUE(rep.integer_ops.empty());
  const std::string summary = quant::qdq_report_summary(rep);
  EXPECT_CONTAINS(summary, "4 stayed float");
  EXPECT_CONTAINS(summary, "stayed float: Erf 'erf': no integer form of Erf");
  const auto j = quant::qdq_report_to_json(rep);
  EXPECT_EQ(j["float_ops"].size(), 4u);
  EXPECT_EQ(j["float_ops"][0]["node"], "Conv 'float_w'");
}

TEST(QdqRewrite, AGroupTheKernelRefusesIsUndoneAndStaysFloat) {
  Q b;
  Value* x = b.input8("x", {1, 2, 3, 3});
  Node* c = b.conv("c", b.dq(x, 0.1f, 0), b.weights("w", {2, 2, 1, 1}, {0.1f}), nullptr, {1, 2, 3, 3}, 1,
                   {0, 0, 0, 0});
  Value* r = b.val("r", {1, 2, 3, 3});
  b.op("Relu", "relu", {c->outputs[0]}, {r});
  Value* y = b.quantize(r, 0.2f, 0);
  Value* s = b.val("sig", {1, 2, 3, 3});
  b.op("Sigmoid", "sigmoid", {b.dq(y, 0.2f, 0)}, {s});
  b.output(b.quantize(s, 1.f / 256.f, -128));
  quant::QdqOptions o;
  o.refuses = [](const Node& n) -> std::optional<std::string> {
    if (n.op_type == "KilnQConv2D") return std::string("too big");
    return std::nullopt;
  };
  QdqReport rep = quant::rewrite_quantized_graph(b.g, o);
  EXPECT_EQ(b.ops(), "DequantizeLinear DequantizeLinear Conv Relu QuantizeLinear KilnQLookup");
  EXPECT_EQ(y->producer->op_type, "QuantizeLinear");
  EXPECT_EQ(b.one("KilnQLookup")->inputs[0], y);
  ASSERT_EQ(rep.float_ops.size(), 1u);
  EXPECT_EQ(rep.float_ops[0].node, "Conv 'c'");
  EXPECT_CONTAINS(rep.float_ops[0].reason, "its integer kernel does not take it: too big");
}

TEST(QdqRewrite, ConvWhoseFloatResultHasTwoReadersStaysFloat) {
  Q b;
  Value* x = b.input8("x", {1, 1, 2, 2});
  Node* c = b.conv("c", b.dq(x, 0.1f, 0), b.weights("w", {1, 1, 1, 1}, {0.1f}), nullptr, {1, 1, 2, 2}, 1,
                   {0, 0, 0, 0});
  b.output(b.quantize(c->outputs[0], 0.2f, 0));
  b.output(c->outputs[0]);
  QdqReport rep = b.rewrite();
  ASSERT_EQ(rep.float_ops.size(), 1u);
  EXPECT_CONTAINS(rep.float_ops[0].reason, "graph output");
}

TEST(QdqRewrite, AFloatModelIsNotAQuantizedModel) {
  Q b;
  Value* x = b.input("x", {1, 4});
  Value* y = b.val("y", {1, 4});
  b.op("Relu", "relu", {x}, {y});
  b.output(y);
  QdqReport rep = b.rewrite();
  EXPECT_FALSE(rep.quantized_model);
  EXPECT_EQ(quant::qdq_report_summary(rep), "");
  EXPECT_EQ(b.ops(), "Relu");
}

// ---- QLinear operators --------------------------------------------------------------

TEST(QdqRewrite, QLinearConvWithConstantWeightsBecomesKilnQConv2D) {
  Q b;
  Value* x = b.input8("x", {1, 2, 3, 3});
  Value* w = b.g.add_value("w", DType::Int8, {3, 2, 1, 1});
  w->constant = Constant::from_doubles(DType::Int8, {3, 2, 1, 1}, {1, -2, 3, -4, 5, -6});
  Value* ws = b.g.add_value("ws", DType::Float32, {3});
  ws->constant = Constant::from_floats({3}, {0.1f, 0.2f, 0.3f});
  Value* bias = b.g.add_value("bias", DType::Int32, {3});
  bias->constant = Constant::from_doubles(DType::Int32, {3}, {7, 8, 9});
  Value* y = b.g.add_value("y", DType::Int8, {1, 3, 3, 3});
  b.op("QLinearConv", "qconv",
       {x, b.scalar_f(0.5f), b.scalar_q(1), w, ws, b.scalar_q(0), b.scalar_f(0.25f), b.scalar_q(-1), bias}, {y});
  b.output(y);
  QdqReport rep = b.rewrite();
  EXPECT_EQ(b.ops(), "KilnQConv2D Transpose");  // the input read in NCHW
  const Node* q = b.one("KilnQConv2D");
  ASSERT_TRUE(q);
  EXPECT_EQ(q->attr_int("x_zero_point", 0), 1);
  EXPECT_EQ(q->attr_int("y_zero_point", 0), -1);
  EXPECT_EQ(q->attr_floats("requant_scale")[2], requant(0.5f, 0.3f, 0.25f));
  EXPECT_EQ(q->inputs[2]->constant->to_int64s(), (std::vector<int64_t>{7, 8, 9}));
  EXPECT_EQ(b.g.outputs[0], y);
  EXPECT_EQ(y->producer->op_type, "Transpose");
}

TEST(QdqRewrite, Uint8QLinearConvChainBecomesInt8) {
  Q b;
  Value* x = b.input("x", {1, 2, 3, 3});
  Value* xq = b.quantize(x, 0.1f, 128, DType::UInt8);
  Value* w = b.g.add_value("w", DType::UInt8, {2, 2, 1, 1});
  w->constant = Constant::from_doubles(DType::UInt8, {2, 2, 1, 1}, {0, 128, 129, 255});
  Value* y = b.g.add_value("y", DType::UInt8, {1, 2, 3, 3});
  b.op("QLinearConv", "qconv",
       {xq, b.scalar_f(0.1f), b.scalar_q(128, DType::UInt8), w, b.scalar_f(0.05f), b.scalar_q(128, DType::UInt8),
        b.scalar_f(0.2f), b.scalar_q(130, DType::UInt8)},
       {y});
  b.output(b.dq(y, 0.2f, 130));
  QdqReport rep = b.rewrite();
  EXPECT_EQ(b.ops(), "QuantizeLinear KilnQConv2D Transpose DequantizeLinear");
  const Node* q = b.one("KilnQConv2D");
  ASSERT_TRUE(q);
  EXPECT_EQ(q->attr_int("x_zero_point", 9), 0);
  EXPECT_EQ(q->attr_int("y_zero_point", 9), 2);
  EXPECT_EQ(q->inputs[1]->constant->to_int64s(), (std::vector<int64_t>{-128, 0, 1, 127}));
  EXPECT_EQ(xq->dtype, DType::Int8);
  EXPECT_EQ(y->dtype, DType::Int8);
  EXPECT_TRUE(rep.float_ops.empty());
}

TEST(QdqRewrite, QLinearConvWithRuntimeWeightsStaysAsItIs) {
  Q b;
  Value* x = b.input8("x", {1, 1, 2, 2});
  Value* w = b.input8("w", {1, 1, 1, 1});
  Value* y = b.g.add_value("y", DType::Int8, {1, 1, 2, 2});
  b.op("QLinearConv", "qconv",
       {x, b.scalar_f(0.5f), b.scalar_q(0), w, b.scalar_f(0.5f), b.scalar_q(0), b.scalar_f(0.25f), b.scalar_q(0)},
       {y});
  b.output(y);
  QdqReport rep = b.rewrite();
  EXPECT_EQ(b.ops(), "QLinearConv");
  ASSERT_EQ(rep.float_ops.size(), 1u);
  EXPECT_CONTAINS(rep.float_ops[0].reason, "weights are not constant");
}

// ---- the folder leaves dequantized weights to this pass ------------------------------

TEST(QdqRewrite, FoldingKeepsDequantizeLinearOfConstantWeights) {
  Q b;
  Value* x = b.input8("x", {1, 2, 3, 3});
  Node* c = b.conv("c", b.dq(x, 0.1f, 0), b.weights("w", {2, 2, 1, 1}, {0.02f, 0.03f}), nullptr, {1, 2, 3, 3}, 1,
                   {0, 0, 0, 0});
  b.output(b.quantize(c->outputs[0], 0.2f, 0));
  fold_and_simplify(b.g, FoldOptions{});
  int dq_of_constants = 0;
  for (const auto& n : b.g.nodes)
    dq_of_constants += n->op_type == "DequantizeLinear" && n->inputs[0]->is_constant();
  EXPECT_EQ(dq_of_constants, 1);  // the int8 weights are still int8 behind their DQ
  b.rewrite();
  EXPECT_EQ(b.one("KilnQConv2D")->inputs[1]->dtype, DType::Int8);
}

}  // namespace
}  // namespace kiln
