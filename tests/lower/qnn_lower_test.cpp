// The int8 lowerings (lower/ops/qnn_*.cpp): each KilnQ* node is lowered, its
// parameter struct and call are compiled into a small C program with the crt's s8
// kernels (host cc, -Werror, ASan/UBSan) and run; the output must equal TFLite's
// reference (tests/support/tflite_int8_reference.h) bit for bit. Bad nodes fail
// with one-line errors that name them.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <unistd.h>

#include "../support/expect_contains.h"
#include "../support/tflite_int8_reference.h"
#include "lower/lowering.h"
#include "lower/ops/qnn_s8_params.h"
#include "quant/fixed_point.h"
#include "util/error.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;

struct OneNode {
  Graph g;
  Node* node = nullptr;
  std::vector<Value*> ins;
  Value* out = nullptr;
  Value* in(const std::string& name, Shape s, ConstantPtr c = nullptr) {
    Value* v = g.add_value(name, DType::Int8, std::move(s));
    v->constant = c;
    if (!c) {
      v->is_graph_input = true;
      g.inputs.push_back(v);
    }
    ins.push_back(v);
    return v;
  }
  Node& make(const std::string& op, Shape out_shape) {
    out = g.add_value("y", DType::Int8, std::move(out_shape));
    out->is_graph_output = true;
    g.outputs.push_back(out);
    node = g.add_node(op, "q_node", ins, {out});
    return *node;
  }
};

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
  return s;
}

std::string c_bytes(const std::vector<int8_t>& v) {
  std::ostringstream o;
  o << "{";
  for (size_t i = 0; i < v.size(); ++i) o << (i ? "," : "") << int(v[i]);
  return o.str() + "}";
}

// Compiles the lowered call with the given input data and returns the output
// (empty on failure, with a test failure recorded).
std::vector<int8_t> run_lowered(const KernelCall& k, const std::vector<std::vector<int8_t>>& inputs, size_t out_size) {
  const fs::path dir = fs::temp_directory_path() / ("kiln_qnn_lower_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ostringstream c;
  c << "#include <stdio.h>\n#include \"kiln_kernels.h\"\n";
  c << "static const " << k.params_type << " params = " << k.params_init << ";\n";
  for (size_t i = 0; i < inputs.size(); ++i)
    c << "static const int8_t in" << i << "[" << std::max<size_t>(inputs[i].size(), 1) << "] = " << c_bytes(inputs[i])
      << ";\n";
  c << "static int8_t out0[" << out_size << "];\n";
  std::string call = replace_all(k.call, "$params", "params");
  for (size_t i = 0; i < inputs.size(); ++i) call = replace_all(call, "$in" + std::to_string(i), "in" + std::to_string(i));
  call = replace_all(call, "$out0", "out0");
  c << "int main(void) {\n  size_t i;\n  kiln_status_t s = " << call << ";\n  if (s != KILN_OK) return 3;\n"
    << "  for (i = 0; i < sizeof out0; ++i) printf(\"%d\\n\", out0[i]);\n  return 0;\n}\n";
  std::ofstream(dir / "main.c") << c.str();
  std::string cmd = "cc -std=c99 -Wall -Wextra -Werror -pedantic -O1 -g -fsanitize=address,undefined "
                    "-fno-sanitize-recover=all -I" KILN_SOURCE_DIR "/crt/include " + (dir / "main.c").string();
  for (const auto& e : fs::directory_iterator(KILN_SOURCE_DIR "/crt/src/kernels/s8"))
    if (e.path().extension() == ".c") cmd += " " + e.path().string();
  cmd += " -o " + (dir / "main").string() + " 2>&1";
  std::string log;
  char b[4096];
  FILE* p = popen(cmd.c_str(), "r");
  while (p && fgets(b, sizeof b, p)) log += b;
  if (!p || pclose(p) != 0) {
    ADD_FAILURE() << "compiling the lowered call failed:\n" << log;
    return {};
  }
  p = popen((dir / "main").string().c_str(), "r");
  std::vector<int8_t> out;
  while (p && fgets(b, sizeof b, p)) out.push_back(static_cast<int8_t>(std::atoi(b)));
  EXPECT_EQ(p ? pclose(p) : -1, 0);
  fs::remove_all(dir);
  return out;
}

std::string lower_error(const Node& n) {
  try {
    lower_node(n, LoweringTarget{});
  } catch (const CompileError& e) {
    std::string m = e.what();
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    EXPECT_CONTAINS(m, n.describe());
    return m;
  }
  ADD_FAILURE() << "no error for " << n.describe();
  return {};
}

void set_binary_attrs(Node& n, const tflite_ref::BinaryQuant& q) {
  n.attrs["a_scale"] = double(q.a_scale);
  n.attrs["b_scale"] = double(q.b_scale);
  n.attrs["y_scale"] = double(q.y_scale);
  n.attrs["a_zero_point"] = int64_t(q.a_zp);
  n.attrs["b_zero_point"] = int64_t(q.b_zp);
  n.attrs["y_zero_point"] = int64_t(q.y_zp);
  n.attrs["act_min"] = int64_t(q.act_min);
  n.attrs["act_max"] = int64_t(q.act_max);
}

std::vector<int8_t> all_values() {
  std::vector<int8_t> v(256);
  for (int i = 0; i < 256; ++i) v[i] = static_cast<int8_t>(i - 128);
  return v;
}

// Every (a, b) pair through the lowered Add / Sub / Mul: a [256, 1], b [1, 256].
void expect_binary_all_pairs(const std::string& op, const tflite_ref::BinaryQuant& q) {
  OneNode t;
  t.in("a", {256, 1});
  t.in("b", {1, 256});
  Node& n = t.make(op, {256, 256});
  set_binary_attrs(n, q);
  const KernelCall k = lower_node(n, LoweringTarget{});
  EXPECT_TRUE(k.in_place_inputs.empty());  // neither input has the output's shape
  const std::vector<int8_t> y = run_lowered(k, {all_values(), all_values()}, 256 * 256);
  ASSERT_EQ(y.size(), 256u * 256u);
  int bad = 0;
  for (int i = 0; i < 256; ++i)
    for (int j = 0; j < 256; ++j) {
      const int8_t want = op == "KilnQMul" ? tflite_ref::mul(q, i - 128, j - 128)
                                           : tflite_ref::add(q, i - 128, j - 128, op == "KilnQSub");
      if (y[i * 256 + j] != want && ++bad <= 5)
        ADD_FAILURE() << op << " a=" << i - 128 << " b=" << j - 128 << " got " << int(y[i * 256 + j]) << " want "
                      << int(want);
    }
}

TEST(QnnLowering, AddSubMulMatchTfliteOnEveryPair) {
  expect_binary_all_pairs("KilnQAdd", {0.0235f, 0.0312f, 0.0467f, -5, 12, -20, -20, 127});
  expect_binary_all_pairs("KilnQSub", {0.05f, 0.0071f, 0.061f, 0, 100, -3, -128, 127});
  expect_binary_all_pairs("KilnQMul", {0.03f, 0.011f, 0.0021f, -9, 4, 2, -128, 100});
}

TEST(QnnLowering, SameShapeBinaryRunsInPlace) {
  OneNode t;
  t.in("a", {1, 4, 4, 8});
  t.in("b", {1, 1, 1, 8});
  Node& n = t.make("KilnQAdd", {1, 4, 4, 8});
  set_binary_attrs(n, {0.02f, 0.02f, 0.04f, 0, 0, 0, -128, 127});
  EXPECT_EQ(lower_node(n, LoweringTarget{}).in_place_inputs, std::vector<int>{0});
}

TEST(QnnLowering, PoolsMatchTflite) {
  std::mt19937 rng(51);
  std::uniform_int_distribution<int> d(-128, 127);
  // 7x8x5, 3x3 stride 2, TFLite SAME (pads 1,1,1,1 -> 4x4) and VALID.
  for (const auto& g : std::vector<std::vector<int64_t>>{{1, 1, 1, 1, 4, 4}, {0, 0, 0, 0, 3, 3}}) {
    for (const std::string op : {"KilnQAvgPool2D", "KilnQMaxPool2D"}) {
      OneNode t;
      t.in("x", {1, 7, 8, 5});
      Node& n = t.make(op, {1, g[4], g[5], 5});
      n.attrs["kernel_shape"] = std::vector<int64_t>{3, 3};
      n.attrs["strides"] = std::vector<int64_t>{2, 2};
      n.attrs["pads"] = std::vector<int64_t>{g[0], g[1], g[2], g[3]};
      n.attrs["act_min"] = int64_t(-100);
      n.attrs["act_max"] = int64_t(90);
      std::vector<int8_t> x(7 * 8 * 5);
      for (auto& v : x) v = static_cast<int8_t>(d(rng));
      kiln_pool2d_s8_params_t p{1, 7, 8, 5, int32_t(g[4]), int32_t(g[5]), 3, 3, 2, 2, int32_t(g[0]), int32_t(g[1]), -100, 90};
      EXPECT_EQ(run_lowered(lower_node(n, LoweringTarget{}), {x}, size_t(g[4] * g[5] * 5)), tflite_ref::pool(p, x, op == "KilnQAvgPool2D"))
          << op;
    }
  }
}

TEST(QnnLowering, SoftmaxMatchesTflite) {
  std::mt19937 rng(52);
  std::uniform_int_distribution<int> d(-128, 127);
  std::vector<int8_t> x(3 * 12);
  for (auto& v : x) v = static_cast<int8_t>(d(rng));
  OneNode t;
  t.in("x", {3, 12});
  Node& n = t.make("KilnQSoftmax", {3, 12});
  n.attrs["beta"] = 1.0;
  n.attrs["x_scale"] = double(0.0972f);
  const KernelCall k = lower_node(n, LoweringTarget{});
  EXPECT_EQ(k.in_place_inputs, std::vector<int>{0});
  EXPECT_EQ(run_lowered(k, {x}, x.size()), tflite_ref::softmax(x, 12, 1.0, double(0.0972f)));
}

TEST(QnnLowering, LookupReadsTheConstantTable) {
  std::mt19937 rng(53);
  std::uniform_int_distribution<int> d(-128, 127);
  std::vector<uint8_t> table_bytes(256);
  std::vector<int8_t> table(256), x(2 * 130);
  for (int i = 0; i < 256; ++i) table[i] = static_cast<int8_t>(d(rng)), table_bytes[i] = uint8_t(table[i]);
  for (auto& v : x) v = static_cast<int8_t>(d(rng));
  OneNode t;
  t.in("x", {2, 130});
  t.in("table", {256}, Constant::from_bytes(DType::Int8, {256}, table_bytes));
  Node& n = t.make("KilnQLookup", {2, 130});
  const KernelCall k = lower_node(n, LoweringTarget{});
  EXPECT_EQ(k.in_place_inputs, std::vector<int>{0});
  std::vector<int8_t> want(x.size());
  for (size_t i = 0; i < x.size(); ++i) want[i] = table[x[i] + 128];
  EXPECT_EQ(run_lowered(k, {x, table}, x.size()), want);
}

// A channel whose requantized output cannot depend on the input (TFLite's dead
// channels: bias 2^30, scale ~2^-28) is a compile-time constant for the packed
// form; an ordinary channel is not, and a clamp that catches the whole range is.
TEST(QnnLowering, ConstantChannelsAreFoundExactly) {
  S8Quant q;
  q.x_zero_point = 5;
  q.y_zero_point = -128;
  const std::vector<int64_t> w = {1, -2, 3, 0, 0, 0, 127, -128, 100};
  const quant::QuantizedMultiplier dead = quant::quantize_multiplier(2.9e-9);
  ASSERT_LT(dead.shift, -22);
  const std::optional<int64_t> y = s8_constant_output(w, 0, 3, int64_t(1) << 30, dead, q);
  ASSERT_TRUE(y.has_value());
  EXPECT_EQ(*y, -128 + quant::multiply_by_quantized_multiplier(int32_t(1) << 30, dead.multiplier, dead.shift));
  EXPECT_EQ(*s8_constant_output(w, 1, 3, 12345, dead, q), -128);  // zero weights: the bias alone
  EXPECT_FALSE(s8_constant_output(w, 2, 3, 0, quant::quantize_multiplier(0.01), q).has_value());
  EXPECT_EQ(*s8_constant_output(w, 2, 3, int64_t(1) << 29, quant::quantize_multiplier(0.01), q), 127);
}

TEST(QnnLowering, BadNodesFailNamingThem) {
  {  // y_scale too small for TFLite's Add scheme
    OneNode t;
    t.in("a", {4});
    t.in("b", {4});
    Node& n = t.make("KilnQAdd", {4});
    set_binary_attrs(n, {1.0f, 1.0f, 1e-7f, 0, 0, 0, -128, 127});
    EXPECT_CONTAINS(lower_error(n), "y_scale is too small");
  }
  {  // missing attribute
    OneNode t;
    t.in("a", {4});
    t.in("b", {4});
    Node& n = t.make("KilnQMul", {4});
    set_binary_attrs(n, {0.1f, 0.1f, 0.1f, 0, 0, 0, -128, 127});
    n.attrs.erase("b_scale");
    EXPECT_CONTAINS(lower_error(n), "'b_scale' is required");
  }
  {  // a Mul multiplier that overflows TFLite's int32 left shift
    OneNode t;
    t.in("a", {4});
    t.in("b", {4});
    Node& n = t.make("KilnQMul", {4});
    set_binary_attrs(n, {1.0f, 1.0f, 1e-6f, 0, 0, 0, -128, 127});
    EXPECT_CONTAINS(lower_error(n), "too large");
  }
  {  // pool output that does not follow from the geometry
    OneNode t;
    t.in("x", {1, 8, 8, 4});
    Node& n = t.make("KilnQAvgPool2D", {1, 3, 4, 4});
    n.attrs["kernel_shape"] = std::vector<int64_t>{2, 2};
    n.attrs["strides"] = std::vector<int64_t>{2, 2};
    EXPECT_CONTAINS(lower_error(n), "does not follow");
  }
  {  // average window entirely in the padding
    OneNode t;
    t.in("x", {1, 4, 4, 4});
    Node& n = t.make("KilnQAvgPool2D", {1, 3, 2, 4});
    n.attrs["kernel_shape"] = std::vector<int64_t>{2, 2};
    n.attrs["strides"] = std::vector<int64_t>{2, 2};
    n.attrs["pads"] = std::vector<int64_t>{2, 0, 0, 0};
    EXPECT_CONTAINS(lower_error(n), "entirely in the padding");
  }
  {  // softmax depth beyond the Q12.19 sum
    OneNode t;
    t.in("x", {1, 5000});
    Node& n = t.make("KilnQSoftmax", {1, 5000});
    n.attrs["x_scale"] = 0.1;
    EXPECT_CONTAINS(lower_error(n), "1..4095");
  }
  {  // lookup table not constant
    OneNode t;
    t.in("x", {4});
    t.in("table", {256});
    Node& n = t.make("KilnQLookup", {4});
    EXPECT_CONTAINS(lower_error(n), "input 1 'table' must be a constant");
  }
  {  // float input
    OneNode t;
    Value* x = t.in("x", {4, 4});
    x->dtype = DType::Float32;
    Node& n = t.make("KilnQSoftmax", {4, 4});
    n.attrs["x_scale"] = 0.1;
    EXPECT_CONTAINS(lower_error(n), "input 0 'x' is float32, expected int8");
  }
}

}  // namespace
}  // namespace kiln
