// Lowering single nodes to kernel calls: scratch requests, views, errors that name
// the node, and the exactness of the C literals lowerings print.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <regex>

#include "../support/expect_contains.h"
#include "ir/kiln_ops.h"
#include "lower/lower_util.h"
#include "lower/lowering.h"
#include "util/error.h"

namespace kiln {
namespace {

// A one-node graph: inputs (shape, dtype, optional constant), outputs.
struct OneNode {
  Graph g;
  Node* node = nullptr;
  std::vector<Value*> ins, outs;

  Value* in(const std::string& name, Shape s, DType t = DType::Float32, ConstantPtr c = nullptr) {
    Value* v = g.add_value(name, t, std::move(s));
    v->constant = c;
    if (!c) {
      v->is_graph_input = true;
      g.inputs.push_back(v);
    }
    ins.push_back(v);
    return v;
  }
  Value* out(const std::string& name, Shape s, DType t = DType::Float32) {
    Value* v = g.add_value(name, t, std::move(s));
    outs.push_back(v);
    return v;
  }
  Node& make(const std::string& op, const std::string& name, int64_t opset = 13) {
    g.opset = opset;
    node = g.add_node(op, name, ins, outs);
    for (Value* o : outs) {
      o->is_graph_output = true;
      g.outputs.push_back(o);
    }
    return *node;
  }
};

std::string lower_error(const Node& n) {
  try {
    lower_node(n, LoweringTarget{});
  } catch (const CompileError& e) {
    std::string m = e.what();
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    EXPECT_CONTAINS(m, n.describe());
    return m;
  }
  ADD_FAILURE() << "lowering " << n.describe() << " did not throw CompileError";
  return "";
}

// The value of field `.name = 12u` in a C99 designated initializer.
int64_t field(const std::string& init, const std::string& name) {
  std::smatch m;
  std::regex re("\\." + name + " = (-?[0-9]+)u?");
  if (!std::regex_search(init, m, re)) {
    ADD_FAILURE() << "no field " << name << " in " << init;
    return -1;
  }
  return std::stoll(m[1]);
}

struct ConvCase {
  OneNode t;
  Node* n;
  ConvCase(Shape x, Shape w, Shape y, int64_t group = 1, std::vector<int64_t> pads = {}) {
    t.in("x", x);
    t.in("w", w, DType::Float32, Constant::from_floats(w, std::vector<float>(size_t(shape_elements(w)), 0.5f)));
    t.out("y", y);
    n = &t.make("Conv", "conv1");
    n->attrs["group"] = group;
    if (!pads.empty()) n->attrs["pads"] = pads;
  }
};

TEST(LowerConv, GeneralConvDeclaresAnIm2colScratchTheKernelCanUse) {
  ConvCase c({1, 3, 8, 8}, {4, 3, 3, 3}, {1, 4, 6, 6});
  KernelCall k = lower_node(*c.n, LoweringTarget{});
  ASSERT_EQ(k.scratch.size(), 1u);
  EXPECT_EQ(k.scratch[0].purpose, "im2col");
  EXPECT_GE(k.scratch[0].alignment, 4u);
  EXPECT_EQ(k.params_type, "kiln_conv2d_params_t");
  EXPECT_CONTAINS(k.call, "$scratch0");
  EXPECT_CONTAINS(k.call, "$in0");
  EXPECT_CONTAINS(k.call, "$out0");
  EXPECT_CONTAINS(k.call, "NULL");  // no bias
  // Constant weights are packed in blocks of four output channels, [K][4] each.
  EXPECT_CONTAINS(k.call, "$const0");
  EXPECT_CONTAINS(k.params_init, "KILN_CONV_WEIGHTS_GEMM_BLOCKS");
  ASSERT_EQ(k.constants.size(), 1u);
  EXPECT_EQ(k.constants[0]->num_elements(), 4 * 27);
  EXPECT_EQ(k.constants[0]->as_double(4 * 5 + 2), 0.5);  // channel 2, reduction index 5
  EXPECT_EQ(k.unread_inputs, std::vector<int>{1});
  // The kernel lays out tile_rows output rows of patches: K x (tile_rows * w_out) floats.
  const uint64_t row_bytes = 3 * 3 * 3 * 6 * sizeof(float);
  const int64_t tile_rows = field(k.params_init, "tile_rows");
  EXPECT_GE(tile_rows, 1);
  EXPECT_LE(tile_rows, 6);
  EXPECT_EQ(k.scratch[0].size_bytes, row_bytes * uint64_t(tile_rows));
  EXPECT_EQ(field(k.params_init, "c_in"), 3);
  EXPECT_EQ(field(k.params_init, "c_out"), 4);
  EXPECT_EQ(field(k.params_init, "h_out"), 6);
  EXPECT_EQ(field(k.params_init, "k_w"), 3);
  EXPECT_EQ(k.alias_input, -1);
}

TEST(LowerConv, WideRowsStillGetOneFullRowOfScratch) {
  // One output row of patches: 16*5*5*60 floats = 96000 bytes, over any small budget.
  ConvCase c({1, 16, 64, 64}, {8, 16, 5, 5}, {1, 8, 60, 60});
  KernelCall k = lower_node(*c.n, LoweringTarget{});
  ASSERT_EQ(k.scratch.size(), 1u);
  const uint64_t row_bytes = 16 * 5 * 5 * 60 * sizeof(float);
  const int64_t tile_rows = field(k.params_init, "tile_rows");
  EXPECT_GE(tile_rows, 1);
  EXPECT_EQ(k.scratch[0].size_bytes, row_bytes * uint64_t(tile_rows));
}

TEST(LowerConv, GroupedConvScratchCoversOneGroup) {
  ConvCase c({1, 4, 6, 6}, {6, 2, 3, 3}, {1, 6, 6, 6}, /*group=*/2, {1, 1, 1, 1});
  KernelCall k = lower_node(*c.n, LoweringTarget{});
  ASSERT_EQ(k.scratch.size(), 1u);
  const uint64_t row_bytes = 2 * 3 * 3 * 6 * sizeof(float);  // c_in / group channels
  EXPECT_EQ(k.scratch[0].size_bytes, row_bytes * uint64_t(field(k.params_init, "tile_rows")));
  EXPECT_EQ(field(k.params_init, "groups"), 2);
  EXPECT_EQ(field(k.params_init, "pad_top"), 1);
}

TEST(LowerConv, PointwiseNeedsNoScratch) {
  ConvCase pw({1, 8, 5, 5}, {4, 8, 1, 1}, {1, 4, 5, 5});
  KernelCall k = lower_node(*pw.n, LoweringTarget{});
  EXPECT_TRUE(k.scratch.empty());
  EXPECT_EQ(field(k.params_init, "tile_rows"), 0);
  EXPECT_EQ(k.call.find("$scratch"), std::string::npos);
  EXPECT_CONTAINS(k.params_init, "KILN_CONV_WEIGHTS_GEMM_BLOCKS");
}

TEST(LowerConv, Depthwise3x3GetsPackedTapsAndARingOfPaddedRows) {
  ConvCase dw({1, 8, 5, 5}, {8, 1, 3, 3}, {1, 8, 3, 3}, /*group=*/8);
  KernelCall kd = lower_node(*dw.n, LoweringTarget{});
  EXPECT_CONTAINS(kd.params_init, "KILN_CONV_WEIGHTS_DEPTHWISE_3X3");
  ASSERT_EQ(kd.constants.size(), 1u);
  EXPECT_EQ(kd.constants[0]->num_elements(), 8 * 10);  // nine taps and the bias per channel
  EXPECT_EQ(kd.constants[0]->as_double(9), 0.0);         // no bias input: 0
  ASSERT_EQ(kd.scratch.size(), 1u);
  EXPECT_EQ(kd.scratch[0].size_bytes, 3 * ((3 - 1) * 1 + 3) * sizeof(float));  // three rows of w_out + 2
  EXPECT_CONTAINS(kd.call, "$scratch0");
  EXPECT_EQ(field(kd.params_init, "tile_rows"), 0);

  // Other depthwise shapes keep ONNX's layout and the direct loop (no scratch).
  ConvCase dw5({1, 8, 5, 5}, {8, 1, 5, 5}, {1, 8, 1, 1}, /*group=*/8);
  KernelCall k5 = lower_node(*dw5.n, LoweringTarget{});
  EXPECT_TRUE(k5.scratch.empty());
  EXPECT_CONTAINS(k5.params_init, "KILN_CONV_WEIGHTS_OIHW");
  EXPECT_CONTAINS(k5.call, "$in1");
}

TEST(LowerConv, RuntimeWeightsKeepTheOnnxLayout) {
  OneNode t;
  t.in("x", {1, 3, 8, 8});
  t.in("w", {4, 3, 3, 3});
  t.out("y", {1, 4, 6, 6});
  KernelCall k = lower_node(t.make("Conv", "c"), LoweringTarget{});
  EXPECT_CONTAINS(k.params_init, "KILN_CONV_WEIGHTS_OIHW");
  EXPECT_CONTAINS(k.call, "$in1");
  EXPECT_TRUE(k.constants.empty());
}

TEST(LowerConv, BiasIsPassed) {
  OneNode t;
  t.in("x", {1, 2, 4, 4});
  t.in("w", {3, 2, 1, 1}, DType::Float32, Constant::from_floats({3, 2, 1, 1}, std::vector<float>(6, 1.f)));
  t.in("b", {3}, DType::Float32, Constant::from_floats({3}, {1, 2, 3}));
  t.out("y", {1, 3, 4, 4});
  KernelCall k = lower_node(t.make("Conv", "c"), LoweringTarget{});
  EXPECT_CONTAINS(k.call, "$in2");
}

TEST(LowerConv, UnsupportedCasesNameTheNode) {
  {  // integer data
    OneNode t;
    t.in("x", {1, 1, 4, 4}, DType::Int32);
    t.in("w", {1, 1, 3, 3}, DType::Int32, Constant::from_bytes(DType::Int32, {1, 1, 3, 3}, std::vector<uint8_t>(36)));
    t.out("y", {1, 1, 2, 2}, DType::Int32);
    EXPECT_CONTAINS(lower_error(t.make("Conv", "int_conv")), "int32");
  }
  {  // group does not divide the channels
    ConvCase c({1, 3, 4, 4}, {3, 1, 3, 3}, {1, 3, 2, 2}, /*group=*/2);
    EXPECT_CONTAINS(lower_error(*c.n), "group");
  }
  {  // output larger than the attributes allow
    ConvCase c({1, 1, 5, 5}, {1, 1, 3, 3}, {1, 1, 7, 7});
    lower_error(*c.n);
  }
}

TEST(LowerViews, ViewOpsAliasTheirInput) {
  for (const char* op : {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity"}) {
    OneNode t;
    t.in("x", {2, 1, 6});
    if (std::string(op) == "Reshape") t.in("shape", {2}, DType::Int64, Constant::from_int64s({2}, {3, 4}));
    t.out("y", {3, 4});
    KernelCall k = lower_node(t.make(op, "v"), LoweringTarget{});
    EXPECT_EQ(k.alias_input, 0) << op;
    EXPECT_TRUE(k.call.empty()) << op;
    EXPECT_TRUE(k.scratch.empty()) << op;
  }
}

TEST(LowerViews, DropoutIsAViewUnlessItsMaskIsUsed) {
  OneNode t;
  t.in("x", {4});
  t.out("y", {4});
  KernelCall k = lower_node(t.make("Dropout", "drop"), LoweringTarget{});
  EXPECT_EQ(k.alias_input, 0);

  OneNode m;
  m.in("x", {4});
  m.out("y", {4});
  m.out("mask", {4}, DType::Bool);  // a graph output: used, so a kernel writes it
  KernelCall km = lower_node(m.make("Dropout", "drop_mask"), LoweringTarget{});
  EXPECT_EQ(km.alias_input, -1);
  EXPECT_CONTAINS(km.call, "$out1");
}

TEST(LowerViews, AViewThatChangesTheSizeIsAnError) {
  OneNode t;
  t.in("x", {2, 6});
  t.out("y", {2, 5});
  lower_error(t.make("Identity", "bad_view"));
  OneNode d;
  d.in("x", {4});
  d.out("y", {4}, DType::Float64);
  lower_error(d.make("Flatten", "bad_dtype"));
}

TEST(LowerElementwise, BinaryOpsBroadcastAndRejectOtherDtypes) {
  OneNode t;
  t.in("a", {2, 3});
  t.in("b", {3});
  t.out("y", {2, 3});
  KernelCall k = lower_node(t.make("Add", "add"), LoweringTarget{});
  EXPECT_CONTAINS(k.call, "$in0");
  EXPECT_CONTAINS(k.call, "$in1");
  EXPECT_CONTAINS(k.call, "$out0");
  EXPECT_TRUE(k.scratch.empty());
  EXPECT_EQ(k.alias_input, -1);

  OneNode d;  // ONNX Add is not defined on bool
  d.in("a", {3}, DType::Bool);
  d.in("b", {3}, DType::Bool);
  d.out("y", {3}, DType::Bool);
  EXPECT_CONTAINS(lower_error(d.make("Add", "add_bool")), "bool");

  OneNode mixed;  // inputs of two dtypes
  mixed.in("a", {3});
  mixed.in("b", {3}, DType::Int32);
  mixed.out("y", {3});
  lower_error(mixed.make("Mul", "mul_mixed"));

  OneNode bad;
  bad.in("a", {2, 3});
  bad.in("b", {4});
  bad.out("y", {2, 3});
  lower_error(bad.make("Sub", "sub_bad"));
}

TEST(LowerUnsupported, AttributesNameTheNode) {
  {
    ConvCase c({1, 1, 4, 4}, {1, 1, 3, 3}, {1, 1, 2, 2});
    c.n->attrs["auto_pad"] = std::string("BOGUS");
    EXPECT_CONTAINS(lower_error(*c.n), "auto_pad");
  }
  {
    ConvCase c({1, 1, 4, 4}, {1, 1, 3, 3}, {1, 1, 2, 2});
    c.n->attrs["strides"] = std::vector<int64_t>{0, 1};
    lower_error(*c.n);
  }
  {
    OneNode p;
    p.in("x", {1, 1, 4, 4});
    p.out("y", {1, 1, 2, 2});
    Node& ap = p.make("AveragePool", "pool_pad");
    ap.attrs["kernel_shape"] = std::vector<int64_t>{2, 2};
    ap.attrs["strides"] = std::vector<int64_t>{2, 2};
    ap.attrs["auto_pad"] = std::string("BOGUS");
    EXPECT_CONTAINS(lower_error(ap), "auto_pad");
  }
  {
    OneNode t;  // Dropout in training mode is not inference
    t.in("x", {4});
    t.in("ratio", {}, DType::Float32, Constant::from_floats({}, {0.5f}));
    t.in("training", {}, DType::Bool, Constant::from_bytes(DType::Bool, {}, {1}));
    t.out("y", {4});
    EXPECT_CONTAINS(lower_error(t.make("Dropout", "drop_train")), "training");
  }
}

TEST(Lowering, UnknownOpAndDomainNameTheNode) {
  OneNode t;
  t.in("x", {4});
  t.out("y", {4});
  Node& n = t.make("NoSuchOperator", "mystery");
  EXPECT_FALSE(has_lowering("NoSuchOperator"));
  EXPECT_CONTAINS(lower_error(n), "NoSuchOperator");
  n.op_type = "Relu";
  n.domain = "com.example";
  EXPECT_CONTAINS(lower_error(n), "com.example");
  n.domain = "ai.onnx";  // the default domain's explicit name
  EXPECT_NO_THROW(lower_node(n, LoweringTarget{}));
}

TEST(Lowering, TrainingOptimizersLiveInTheirOwnDomain) {
  OneNode t;
  t.in("R", {}, DType::Float32);
  t.in("T", {}, DType::Int64);
  t.in("X", {3});
  t.in("G", {3});
  t.in("V", {3});
  t.out("X_new", {3});
  t.out("V_new", {3});
  Node& n = t.make("Momentum", "step");
  n.attrs["alpha"] = 0.9;
  n.attrs["beta"] = 1.0;
  n.attrs["norm_coefficient"] = 0.0;
  n.attrs["mode"] = std::string("nesterov");
  EXPECT_CONTAINS(lower_error(n), "not supported");  // no ai.onnx Momentum
  n.domain = "ai.onnx.preview.training";
  KernelCall k = lower_node(n, LoweringTarget{});
  EXPECT_CONTAINS(k.call, "kiln_momentum_f32(&$params, $inptrs, $outptrs)");
  EXPECT_CONTAINS(k.params_init, ".nesterov = 1u");
  n.attrs["mode"] = std::string("sideways");
  EXPECT_CONTAINS(lower_error(n), "sideways");
  n.attrs["mode"] = std::string("standard");
  n.inputs.pop_back();  // V missing: the operand count no longer fits
  EXPECT_CONTAINS(lower_error(n), "per updated tensor");
}

TEST(Lowering, FoundationOpsAreRegistered) {
  for (const char* op : {"Conv", "Gemm", "MatMul", "Relu", "Clip", "Sigmoid", "Tanh", "MaxPool", "AveragePool",
                         "GlobalAveragePool", "Add", "Sub", "Mul", "Div", "Reshape", "Flatten", "Transpose",
                         "Softmax", "Concat", "BatchNormalization"})
    EXPECT_TRUE(has_lowering(op)) << op;
  auto ops = supported_ops();
  EXPECT_TRUE(std::is_sorted(ops.begin(), ops.end()));
}

// -?DIGITS[.DIGITS*][e[+-]DIGITS]f, the forms c_float may print.
bool is_c_float_constant(const std::string& s) {
  size_t i = 0;
  auto digits = [&] {
    size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i > start;
  };
  if (i < s.size() && s[i] == '-') ++i;
  if (!digits()) return false;
  if (i < s.size() && s[i] == '.') {
    ++i;
    digits();
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i + 1 == s.size() && s[i] == 'f';
}

// c_float must print every float so that a C compiler reads back the same bits.
float parse_c_float(const std::string& s) {
  EXPECT_FALSE(s.empty());
  if (s == "NAN") return std::numeric_limits<float>::quiet_NaN();
  if (s == "INFINITY") return INFINITY;
  if (s == "-INFINITY") return -INFINITY;
  EXPECT_EQ(s.back(), 'f') << s;
  // A C floating constant needs a '.' or an exponent before the 'f' suffix ("5f" is not one).
  EXPECT_NE(s.find_first_of(".eE"), std::string::npos) << s;
  EXPECT_TRUE(is_c_float_constant(s)) << s;
  std::string body = s.substr(0, s.size() - 1);
  char* end = nullptr;
  float f = std::strtof(body.c_str(), &end);
  EXPECT_EQ(*end, '\0') << s;
  return f;
}

uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

TEST(CFloat, RoundTripsRandomBitPatterns) {
  std::mt19937 rng(12345);
  int checked = 0;
  for (int i = 0; i < 200000; ++i) {
    uint32_t u = rng();
    float f;
    std::memcpy(&f, &u, 4);
    if (std::isnan(f)) continue;
    std::string s = c_float(f);
    ASSERT_EQ(bits(parse_c_float(s)), u) << s << " for bits 0x" << std::hex << u;
    ++checked;
  }
  EXPECT_GT(checked, 190000);
}

TEST(CFloat, RoundTripsSpecialValues) {
  for (float f : {0.f, -0.f, 1.f, -1.f, 0.1f, 1.f / 3.f, FLT_MAX, -FLT_MAX, FLT_MIN, FLT_TRUE_MIN, -FLT_TRUE_MIN,
                  16777216.f, 16777217.f, 1e10f, 123456792.f, 3.4028234e38f, 1.17549421e-38f /* largest subnormal */}) {
    std::string s = c_float(f);
    EXPECT_EQ(bits(parse_c_float(s)), bits(f)) << s;
  }
  EXPECT_EQ(c_float(-0.0), "-0.0f");
  EXPECT_EQ(c_float(0.5), "0.5f");
  EXPECT_EQ(c_float(2.0), "2.0f");
  EXPECT_EQ(c_float(INFINITY), "INFINITY");
  EXPECT_EQ(c_float(-INFINITY), "-INFINITY");
  EXPECT_EQ(c_float(NAN), "NAN");
  EXPECT_EQ(c_float(-NAN), "NAN");
}

TEST(CFloat, DoublesAreRoundedToTheNearestFloat) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> mant(-1.0, 1.0);
  std::uniform_int_distribution<int> ex(-140, 127);
  for (int i = 0; i < 20000; ++i) {
    double d = std::ldexp(mant(rng), ex(rng));
    EXPECT_EQ(bits(parse_c_float(c_float(d))), bits(float(d))) << d;
  }
  EXPECT_EQ(c_float(1e39), "INFINITY");  // beyond float range: what the C compiler would do too
  EXPECT_EQ(c_float(-1e39), "-INFINITY");
}

TEST(CIntArray, FormatsInitializers) {
  EXPECT_EQ(c_int_array({1, 2, 3}), "{1, 2, 3}");
  EXPECT_EQ(c_int_array({-4}), "{-4}");
  EXPECT_EQ(c_int_array({}), "{0}");  // C99 forbids an empty initializer list
  EXPECT_EQ(c_int_array({0, 2147483647, -2147483647}), "{0, 2147483647, -2147483647}");
}

TEST(ParamsInit, BuildsDesignatedInitializers) {
  std::string s = ParamsInit().u("n", 3).i("pad", -1).f("alpha", 0.25).ints("shape", {2, 3}).raw("p", "NULL").str();
  EXPECT_EQ(s, "{ .n = 3u, .pad = -1, .alpha = 0.25f, .shape = {2, 3}, .p = NULL }");
}

// Int8 Conv2D / FullyConnected: the target CPU picks the weight form.
struct QConvCase {
  OneNode t;
  Node* n;
  // 1x1 conv, 3 input channels, 2 outputs, weights 1..6, bias {10, -20}, x zero point 5.
  QConvCase(bool runtime_bias = false) {
    t.in("x", {1, 2, 2, 3}, DType::Int8);
    t.in("w", {2, 1, 1, 3}, DType::Int8, Constant::from_int64s({2, 1, 1, 3}, {1, 2, 3, 4, 5, 6})->cast_to(DType::Int8));
    if (runtime_bias)
      t.in("b", {2}, DType::Int32);
    else
      t.in("b", {2}, DType::Int32, Constant::from_int64s({2}, {10, -20})->cast_to(DType::Int32));
    t.out("y", {1, 2, 2, 2}, DType::Int8);
    n = &t.make("KilnQConv2D", "qconv");
    n->attrs["x_zero_point"] = int64_t(5);
    n->attrs["requant_scale"] = std::vector<double>{0.01, 0.02};
  }
};

TEST(LowerQuantized, ConvKeepsInt16WeightBlocksWithoutDspOrMve) {
  QConvCase c;
  const LoweringTarget target = lowering_target_for_mcpu("cortex-m3");
  KernelCall k = lower_node(*c.n, target);
  EXPECT_CONTAINS(k.call, "kiln_conv2d_s8(");
  EXPECT_CONTAINS(k.call, "$in2");  // the model's bias, read at run time
  ASSERT_GE(k.constants.size(), 1u);
  EXPECT_EQ(k.constants[0]->dtype(), DType::Int16);
}

TEST(LowerQuantized, ConvWithAConstantBiasTakesThePackedFormOnDsp) {
  QConvCase c;
  const LoweringTarget target = lowering_target_for_mcpu("cortex-m4");
  KernelCall k = lower_node(*c.n, target);
  EXPECT_CONTAINS(k.call, "kiln_conv2d_s8_pk(");
  // Bias, weights and requantization travel in the packed stream, not the model's bias.
  EXPECT_NE(std::find(k.unread_inputs.begin(), k.unread_inputs.end(), 2), k.unread_inputs.end());
}

TEST(LowerQuantized, PointwiseConvOnWholeWordsTakesThePairFormOnDsp) {
  // 1x1 conv, 4 input channels, 2 outputs, weights 1..8, bias {10, -20}.
  OneNode t;
  t.in("x", {1, 3, 1, 4}, DType::Int8);
  t.in("w", {2, 1, 1, 4}, DType::Int8,
       Constant::from_int64s({2, 1, 1, 4}, {1, 2, 3, 4, 5, 6, 7, 8})->cast_to(DType::Int8));
  t.in("b", {2}, DType::Int32, Constant::from_int64s({2}, {10, -20})->cast_to(DType::Int32));
  t.out("y", {1, 3, 1, 2}, DType::Int8);
  Node* n = &t.make("KilnQConv2D", "qconv");
  n->attrs["x_zero_point"] = int64_t(5);
  n->attrs["requant_scale"] = std::vector<double>{0.01, 0.02};
  const LoweringTarget target = lowering_target_for_mcpu("cortex-m4");
  KernelCall k = lower_node(*n, target);
  EXPECT_CONTAINS(k.call, "kiln_conv2d_s8_pw(");
  ASSERT_EQ(k.constants.size(), 1u);
  // One pair of channels: 2 * bias twice, per four taps the doubled taps k, k+2,
  // k+1, k+3 of each channel, then the two channels' requantization.
  const std::vector<int64_t> words = k.constants[0]->to_int64s();
  ASSERT_EQ(words.size(), 14u);
  EXPECT_EQ(words[0], 20);
  EXPECT_EQ(words[1], -40);
  EXPECT_EQ(words[2], 20);
  EXPECT_EQ(words[3], -40);
  EXPECT_EQ(words[4], 2 | (6 << 16));
  EXPECT_EQ(words[5], 4 | (8 << 16));
  EXPECT_EQ(words[6], 10 | (14 << 16));
  EXPECT_EQ(words[7], 12 | (16 << 16));
  // Three pixels: one pair and the odd last pixel, one pair column of scratch.
  ASSERT_EQ(k.scratch.size(), 1u);
  EXPECT_EQ(k.scratch[0].size_bytes, 2u * 4u * 2u);
}

// Int8 depthwise with a depth multiplier: one input channel is an ordinary Conv2D
// (the weights [KH, KW, M] become M rows), several keep the depthwise kernel.
Node& depthwise_with_multiplier(OneNode& t, int64_t in_c, int64_t mult) {
  const int64_t out_c = in_c * mult;
  std::vector<int64_t> w;  // tap t (of 2x2) of output channel c: 10 * t + c + 1
  for (int64_t tap = 0; tap < 4; ++tap)
    for (int64_t c = 0; c < out_c; ++c) w.push_back(10 * tap + c + 1);
  t.in("x", {1, 3, 3, in_c}, DType::Int8);
  t.in("w", {2, 2, out_c}, DType::Int8, Constant::from_int64s({2, 2, out_c}, w)->cast_to(DType::Int8));
  t.in("b", {out_c}, DType::Int32,
       Constant::from_int64s({out_c}, std::vector<int64_t>(size_t(out_c), 7))->cast_to(DType::Int32));
  t.out("y", {1, 2, 2, out_c}, DType::Int8);
  Node& n = t.make("KilnQDepthwiseConv2D", "dw");
  n.attrs["depth_multiplier"] = mult;
  n.attrs["x_zero_point"] = int64_t(5);
  n.attrs["requant_scale"] = std::vector<double>{0.01};
  return n;
}

TEST(LowerQuantized, DepthwiseOfOneInputChannelIsAConv) {
  OneNode t;
  Node& n = depthwise_with_multiplier(t, 1, 3);
  {
    const LoweringTarget target = lowering_target_for_mcpu("cortex-m3");
    KernelCall k = lower_node(n, target);
    EXPECT_CONTAINS(k.call, "kiln_conv2d_s8(");
    EXPECT_EQ(k.params_type, "kiln_conv2d_s8_params_t");
    EXPECT_EQ(field(k.params_init, "groups"), 1);
    EXPECT_EQ(field(k.params_init, "out_c"), 3);
    // One block of four rows (the fourth zero), per pair of taps each row's pair:
    // row c, tap t holds TFLite's w[t][c] = 10 * t + c + 1.
    ASSERT_GE(k.constants.size(), 1u);
    const std::vector<int64_t> v = k.constants[0]->to_int64s();
    ASSERT_GE(v.size(), 16u);
    EXPECT_EQ(std::vector<int64_t>(v.begin(), v.begin() + 16),
              (std::vector<int64_t>{1, 11, 2, 12, 3, 13, 0, 0, 21, 31, 22, 32, 23, 33, 0, 0}));
  }
  {
    // The strip form of a first layer on a DSP target, as TFLite Micro's micro_speech.
    const LoweringTarget target = lowering_target_for_mcpu("cortex-m4");
    EXPECT_CONTAINS(lower_node(n, target).call, "kiln_conv2d_s8_pk_strip(");
  }
  {
    const LoweringTarget target = lowering_target_for_mcpu("cortex-m55");
    EXPECT_CONTAINS(lower_node(n, target).call, "kiln_conv2d_s8_w8(");
  }
}

// A first conv reading the caller's NCHW input (input_nchw, quant/boundary_layout.h):
// the geometry comes from [N, C, H, W]; the strip form on a DSP target, the int16
// form without DSP; refused where only a per-pixel gather would read it (MVE, a
// layer outside the strip form's conditions), so that the Transpose stays.
TEST(LowerQuantized, ConvWithAnNchwInputTakesTheNchwForms) {
  OneNode t;
  t.in("x", {1, 3, 8, 8}, DType::Int8);
  std::vector<int64_t> w(4 * 3 * 3 * 3);
  for (size_t i = 0; i < w.size(); ++i) w[i] = int64_t(i % 7) - 3;
  t.in("w", {4, 3, 3, 3}, DType::Int8, Constant::from_int64s({4, 3, 3, 3}, w)->cast_to(DType::Int8));
  t.in("b", {4}, DType::Int32, Constant::from_int64s({4}, {1, 2, 3, 4})->cast_to(DType::Int32));
  t.out("y", {1, 4, 4, 4}, DType::Int8);
  Node& n = t.make("KilnQConv2D", "first");
  n.attrs["strides"] = std::vector<int64_t>{2, 2};
  n.attrs["pads"] = std::vector<int64_t>{1, 1, 1, 1};
  n.attrs["requant_scale"] = std::vector<double>{0.01};
  n.attrs["input_nchw"] = int64_t(1);
  EXPECT_CONTAINS(can_lower(n, lowering_target_for_mcpu("cortex-m55")).value_or(""), "no int8-weight form");
  for (const char* cpu : {"cortex-m4", "cortex-m3"}) {
    KernelCall k = lower_node(n, lowering_target_for_mcpu(cpu));
    EXPECT_CONTAINS(k.call, std::string(cpu) == "cortex-m4" ? "kiln_conv2d_s8_pk_strip_nchw(" : "kiln_conv2d_s8_nchw(");
    EXPECT_EQ(field(k.params_init, "in_h"), 8) << cpu;
    EXPECT_EQ(field(k.params_init, "in_w"), 8) << cpu;
    EXPECT_EQ(field(k.params_init, "in_c"), 3) << cpu;
    EXPECT_EQ(field(k.params_init, "out_c"), 4) << cpu;
  }
  // Stride 1 with three channels: no strip form (an odd strip step), so no NCHW on DSP.
  n.attrs["strides"] = std::vector<int64_t>{1, 1};
  n.outputs[0]->shape = {1, 8, 8, 4};
  EXPECT_CONTAINS(can_lower(n, lowering_target_for_mcpu("cortex-m4")).value_or(""), "strip form only");
  EXPECT_EQ(can_lower(n, lowering_target_for_mcpu("cortex-m3")), std::nullopt);
  // Read as NHWC the same tensor has 8 channels, which the weights do not fit.
  n.attrs["input_nchw"] = int64_t(0);
  EXPECT_TRUE(can_lower(n, lowering_target_for_mcpu("cortex-m4")).has_value());
}

TEST(LowerQuantized, DepthwiseOfSeveralInputChannelsKeepsTheDepthwiseKernel) {
  OneNode t;
  Node& n = depthwise_with_multiplier(t, 2, 4);
  const LoweringTarget target = lowering_target_for_mcpu("cortex-m4");
  KernelCall k = lower_node(n, target);
  EXPECT_CONTAINS(k.call, "kiln_depthwise_conv2d_s8(");
  EXPECT_EQ(field(k.params_init, "depth_multiplier"), 4);
}

TEST(LowerQuantized, ConvWithARuntimeBiasKeepsTheInt16FormOnDsp) {
  QConvCase c(/*runtime_bias=*/true);
  const LoweringTarget target = lowering_target_for_mcpu("cortex-m4");
  KernelCall k = lower_node(*c.n, target);
  EXPECT_CONTAINS(k.call, "kiln_conv2d_s8(");
  EXPECT_CONTAINS(k.call, "$in2");
}

TEST(LowerQuantized, ConvTakesInt8WeightsAndAFoldedBiasForMve) {
  QConvCase c;
  const LoweringTarget target = lowering_target_for_mcpu("cortex-m55");
  KernelCall k = lower_node(*c.n, target);
  EXPECT_CONTAINS(k.call, "kiln_conv2d_s8_w8(");
  EXPECT_CONTAINS(k.call, "$const2");
  ASSERT_EQ(k.constants.size(), 3u);
  // Two rows of 16 int8 (3 taps, zero padded), in a block of four rows.
  EXPECT_EQ(k.constants[0]->dtype(), DType::Int8);
  EXPECT_EQ(k.constants[0]->size_bytes(), 4u * 16u);
  const std::vector<int64_t> w = k.constants[0]->to_int64s();
  EXPECT_EQ(w[0], 1);
  EXPECT_EQ(w[2], 3);
  EXPECT_EQ(w[3], 0);
  EXPECT_EQ(w[16], 4);
  // bias + input_offset * row sum: 10 - 5 * 6, -20 - 5 * 15.
  EXPECT_EQ(k.constants[2]->dtype(), DType::Int32);
  EXPECT_EQ(k.constants[2]->to_int64s(), (std::vector<int64_t>{-20, -95}));
  EXPECT_EQ(k.scratch.at(0).size_bytes, 2u * 16u);
  // Neither the model's weights nor its bias are read any more.
  EXPECT_NE(std::find(k.unread_inputs.begin(), k.unread_inputs.end(), 1), k.unread_inputs.end());
  EXPECT_NE(std::find(k.unread_inputs.begin(), k.unread_inputs.end(), 2), k.unread_inputs.end());
}

TEST(LowerQuantized, ConvWithARuntimeBiasKeepsTheInt16FormOnMve) {
  QConvCase c(/*runtime_bias=*/true);
  const LoweringTarget target = lowering_target_for_mcpu("cortex-m55");
  KernelCall k = lower_node(*c.n, target);
  EXPECT_CONTAINS(k.call, "kiln_conv2d_s8(");
}

TEST(LowerQuantized, FullyConnectedTakesInt8WeightsForMve) {
  OneNode t;
  t.in("x", {1, 3}, DType::Int8);
  t.in("w", {2, 3}, DType::Int8, Constant::from_int64s({2, 3}, {1, 2, 3, 4, 5, 6})->cast_to(DType::Int8));
  t.out("y", {1, 2}, DType::Int8);
  Node& n = t.make("KilnQFullyConnected", "fc");
  n.attrs["x_zero_point"] = int64_t(-3);
  n.attrs["requant_scale"] = std::vector<double>{0.01};
  {
    const LoweringTarget target = lowering_target_for_mcpu("cortex-m85");
    KernelCall k = lower_node(n, target);
    EXPECT_CONTAINS(k.call, "kiln_fully_connected_s8_w8(");
    ASSERT_EQ(k.constants.size(), 3u);
    EXPECT_EQ(k.constants[2]->to_int64s(), (std::vector<int64_t>{18, 45}));  // no bias: 3 * row sum
  }
  EXPECT_CONTAINS(lower_node(n, LoweringTarget{}).call, "kiln_fully_connected_s8(");  // no target features
}

TEST(LowerQuantized, McpuNamesTheMveCpus) {
  EXPECT_TRUE(lowering_target_for_mcpu("cortex-m55").mve);
  EXPECT_TRUE(lowering_target_for_mcpu("cortex-m85+nofp").mve);
  EXPECT_FALSE(lowering_target_for_mcpu("cortex-m55+nomve").mve);
  EXPECT_FALSE(lowering_target_for_mcpu("cortex-m4").mve);
  EXPECT_FALSE(lowering_target_for_mcpu("cortex-m33").mve);
  EXPECT_FALSE(lowering_target_for_mcpu("").mve);
}

// can_lower answers with the refusal's text, nothing for a node it lowers, and lets
// an internal error of a lowering through (it is a bug, never a refusal).
TEST(Lowering, CanLowerGivesTheRefusalAndLetsInternalErrorsThrough) {
  OneNode ok;
  ok.in("x", {1, 4});
  ok.out("y", {1, 4});
  EXPECT_EQ(can_lower(ok.make("Relu", "relu"), LoweringTarget{}), std::nullopt);

  OneNode refused;
  refused.in("x", {1, 4}, DType::Bool);
  refused.out("y", {1, 4}, DType::Bool);
  Node& relu = refused.make("Relu", "relu_s");
  const std::optional<std::string> why = can_lower(relu, LoweringTarget{});
  ASSERT_TRUE(why.has_value());
  EXPECT_EQ(*why, lower_error(relu));

  OneNode unknown;
  unknown.in("x", {1});
  unknown.out("y", {1});
  EXPECT_CONTAINS(can_lower(unknown.make("NoSuchOp", "n"), LoweringTarget{}).value_or(""), "is not supported by Kiln");

  register_lowering("TestLoweringWithABug",
                    [](const Node&, const LoweringTarget&) -> KernelCall { throw std::logic_error("a bug"); });
  OneNode bug;
  bug.in("x", {1});
  bug.out("y", {1});
  EXPECT_THROW(can_lower(bug.make("TestLoweringWithABug", "b"), LoweringTarget{}), std::logic_error);
}

// A lowering sees the target it is given, and nothing else: the same node lowered
// for two targets in turn takes each target's form.
TEST(Lowering, TheTargetIsAnArgument) {
  OneNode t;
  t.in("x", {1, 16, 8, 32});
  t.in("w", {16, 16, 3, 3}, DType::Float32, Constant::from_floats({16, 16, 3, 3}, std::vector<float>(16 * 16 * 9, 0.5f)));
  t.out("y", {1, 16, 8, 32});
  Node& conv = t.make("Conv", "conv");
  conv.attrs["pads"] = std::vector<int64_t>{1, 1, 1, 1};
  LoweringTarget ram;
  ram.ram_priority = true;
  LoweringTarget lean;
  lean.lean_tiles.insert(&conv);
  // 16 x 3 x 3 floats (576 B) per im2col column, 32 columns a row: a row (speed),
  // 4 columns (RAM), 8 columns (lean: a quarter of the row).
  EXPECT_EQ(lower_node(conv, LoweringTarget{}).scratch.at(0).size_bytes, 576u * 32u);
  EXPECT_EQ(lower_node(conv, ram).scratch.at(0).size_bytes, 576u * 4u);
  EXPECT_EQ(lower_node(conv, lean).scratch.at(0).size_bytes, 576u * 8u);
  EXPECT_EQ(lower_node(conv, LoweringTarget{}).scratch.at(0).size_bytes, 576u * 32u);
}

// The operator table (ir/kiln_ops.h) and the lowerings agree: every Kiln operator
// a lowering is registered for has a definition, and every definition a lowering.
TEST(Lowering, EveryKilnOperatorHasADefinitionAndALowering) {
  for (const std::string& op : supported_ops())
    if (ops::is_kiln_op(op)) EXPECT_NE(ops::find_op_def(op), nullptr) << op << " is lowered but not defined";
  for (const ops::OpDef& d : ops::kiln_op_defs()) EXPECT_TRUE(has_lowering(d.name)) << d.name << " has no lowering";
}

}  // namespace
}  // namespace kiln
