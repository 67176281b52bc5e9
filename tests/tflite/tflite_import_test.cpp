// The TFLite reader and importer on the MLPerf Tiny models: what the file says
// arrives in the integer IR (docs/quantization.md) with TFLite's padding, scales
// and clamp bounds.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "support/expect_contains.h"
#include "tflite/tflite_file.h"
#include "tflite/tflite_importer.h"
#include "util/error.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;
const fs::path kMlperf = KILN_MLPERF_TINY;

std::map<std::string, int> histogram(const Graph& g) {
  std::map<std::string, int> h;
  for (const auto& n : g.nodes) ++h[n->op_type];
  return h;
}

const Node* node_named(const Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n->name == name) return n.get();
  return nullptr;
}

TEST(TfliteFile, RecognizedByContentNotExtension) {
  const fs::path copy = fs::temp_directory_path() / "kiln_tflite_test_model.bin";
  fs::copy_file(kMlperf / "ad01_int8.tflite", copy, fs::copy_options::overwrite_existing);
  EXPECT_TRUE(tflite::is_tflite_file(copy));
  EXPECT_NO_THROW(import_tflite(copy));
  fs::remove(copy);
  EXPECT_FALSE(tflite::is_tflite_file(fs::path(KILN_TFLITE_TESTS) / "CMakeLists.txt"));
  EXPECT_FALSE(tflite::is_tflite_file("/nonexistent/model.tflite"));
}

TEST(TfliteFile, ReadsTensorsBuffersAndQuantization) {
  tflite::Model m = tflite::load_tflite(kMlperf / "kws_ref_model.tflite");
  EXPECT_EQ(m.version, 3u);
  EXPECT_EQ(m.operators.size(), 13u);
  EXPECT_EQ(m.operators[0].name, "CONV_2D");
  EXPECT_EQ(m.operators[12].name, "SOFTMAX");
  ASSERT_EQ(m.inputs.size(), 1u);
  const tflite::Tensor& in = m.tensors[m.inputs[0]];
  EXPECT_EQ(in.name, "input_1");
  EXPECT_EQ(in.shape, (Shape{1, 49, 10, 1}));
  EXPECT_EQ(in.dtype, DType::Int8);
  ASSERT_EQ(in.quant.scale.size(), 1u);
  EXPECT_EQ(in.quant.zero_point[0], 83);
  EXPECT_EQ(in.data, nullptr);
  // The first conv's weights: a constant int8 [64,10,4,1] with 64 per-channel scales.
  const tflite::Tensor& w = m.tensors[m.operators[0].inputs[1]];
  ASSERT_NE(w.data, nullptr);
  EXPECT_EQ(w.shape, (Shape{64, 10, 4, 1}));
  EXPECT_EQ(w.quant.scale.size(), 64u);
  EXPECT_EQ(w.quant.quantized_dimension, 0);
}

TEST(TfliteImport, KwsBecomesIntegerIrWithTflitePadding) {
  auto g = import_tflite(kMlperf / "kws_ref_model.tflite");
  auto h = histogram(*g);
  EXPECT_EQ(h["KilnQConv2D"], 5);
  EXPECT_EQ(h["KilnQDepthwiseConv2D"], 4);
  EXPECT_EQ(h["KilnQAvgPool2D"], 1);
  EXPECT_EQ(h["KilnQFullyConnected"], 1);
  EXPECT_EQ(h["KilnQSoftmax"], 1);
  EXPECT_EQ(h["Reshape"], 1);
  ASSERT_EQ(g->inputs.size(), 1u);
  EXPECT_EQ(g->inputs[0]->name, "input_1");
  EXPECT_EQ(g->outputs[0]->name, "Identity");

  // 49x10 input, 10x4 filter, stride 2, SAME -> 25x5: TFLite pads 9 rows (4 before,
  // the odd one after) and 2 columns (1 and 1).
  const Node* conv = node_named(*g, "CONV_2D_0");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->attr_ints("strides"), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(conv->attr_ints("pads"), (std::vector<int64_t>{4, 1, 5, 1}));
  EXPECT_EQ(conv->attr_ints("dilations"), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(conv->attr_int("group", 0), 1);
  EXPECT_EQ(conv->attr_floats("requant_scale").size(), 64u);
  EXPECT_EQ(conv->attr_int("x_zero_point", 0), 83);
  // Fused RELU: the lower clamp is the output zero point.
  EXPECT_EQ(conv->attr_int("act_min", 0), conv->attr_int("y_zero_point", 1));
  EXPECT_EQ(conv->attr_int("act_max", 0), 127);
  ASSERT_EQ(conv->inputs.size(), 3u);
  EXPECT_EQ(conv->inputs[1]->shape, (Shape{64, 10, 4, 1}));
  EXPECT_EQ(conv->inputs[2]->dtype, DType::Int32);

  // Depthwise weights [1,3,3,64] become [3,3,64]; multiplier 1.
  const Node* dw = node_named(*g, "DEPTHWISE_CONV_2D_1");
  ASSERT_NE(dw, nullptr);
  EXPECT_EQ(dw->inputs[1]->shape, (Shape{3, 3, 64}));
  EXPECT_EQ(dw->attr_int("depth_multiplier", 0), 1);
  EXPECT_EQ(dw->attr_ints("pads"), (std::vector<int64_t>{1, 1, 1, 1}));

  const Node* sm = node_named(*g, "SOFTMAX_12");
  ASSERT_NE(sm, nullptr);
  EXPECT_DOUBLE_EQ(sm->attr_float("beta", 0), 1.0);
}

TEST(TfliteImport, RequantScaleIsTflitesDoubleFromFloatScales) {
  tflite::Model m = tflite::load_tflite(kMlperf / "ad01_int8.tflite");
  auto g = import_tflite_model(m, "ad01_int8.tflite");
  const auto& op = m.operators[0];
  const double sx = m.tensors[op.inputs[0]].quant.scale[0];
  const double sy = m.tensors[op.outputs[0]].quant.scale[0];
  const auto& sw = m.tensors[op.inputs[1]].quant.scale;
  const Node* fc = node_named(*g, "FULLY_CONNECTED_0");
  ASSERT_NE(fc, nullptr);
  auto rs = fc->attr_floats("requant_scale");
  ASSERT_EQ(rs.size(), sw.size());
  for (size_t c = 0; c < sw.size(); ++c) EXPECT_EQ(rs[c], sx * double(sw[c]) / sy);
  EXPECT_EQ(histogram(*g)["KilnQFullyConnected"], 10);
}

TEST(TfliteImport, ResnetAddsKeepBothSidesQuantization) {
  auto g = import_tflite(kMlperf / "pretrainedResnet_quant.tflite");
  const Node* add = node_named(*g, "ADD_3");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->op_type, "KilnQAdd");
  for (const char* a : {"a_scale", "b_scale", "y_scale"}) EXPECT_GT(add->attr_float(a, 0), 0.0) << a;
  EXPECT_NE(add->attr_float("a_scale", 0), add->attr_float("b_scale", 0));
}

}  // namespace
}  // namespace kiln

namespace kiln {
namespace {

const fs::path kTests = KILN_TFLITE_TESTS;

std::vector<uint8_t> read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(TfliteImport, TinyInt8ConvWithFusedRelu6AndPool) {
  auto g = import_tflite(kTests / "models" / "tiny_int8_conv.tflite");
  ASSERT_EQ(g->nodes.size(), 2u);
  const Node* conv = g->nodes.front().get();
  EXPECT_EQ(conv->op_type, "KilnQConv2D");
  EXPECT_EQ(conv->attr_ints("pads"), (std::vector<int64_t>{1, 1, 1, 1}));
  // RELU6 on output scale 0.03, zero point -128: [-128, -128 + round(6 / 0.03) = 72].
  EXPECT_EQ(conv->attr_int("act_min", 0), -128);
  EXPECT_EQ(conv->attr_int("act_max", 0), 72);
  auto rs = conv->attr_floats("requant_scale");
  ASSERT_EQ(rs.size(), 3u);
  EXPECT_EQ(rs[1], double(0.05f) * double(0.02f) / double(0.03f));
  const Node* pool = g->nodes.back().get();
  EXPECT_EQ(pool->op_type, "KilnQMaxPool2D");
  EXPECT_EQ(pool->attr_ints("kernel_shape"), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(pool->attr_ints("pads"), (std::vector<int64_t>{0, 0, 0, 0}));
  EXPECT_EQ(g->inputs[0]->name, "image");
  EXPECT_EQ(g->outputs[0]->name, "scores");
}

// Every single-byte corruption of a valid model either still loads and imports
// or is refused with a CompileError: never a crash, a hang or another exception
// (the host tests run under ASan/UBSan).
TEST(TfliteFile, EveryByteCorruptionIsRefusedCleanly) {
  const std::vector<uint8_t> good = read_bytes(kTests / "models" / "tiny_int8_conv.tflite");
  ASSERT_GT(good.size(), 100u);
  size_t refused = 0, loaded = 0;
  for (size_t i = 0; i < good.size(); ++i)
    for (uint8_t v : {uint8_t(good[i] ^ 0x01), uint8_t(good[i] ^ 0x80), uint8_t(0xFF), uint8_t(0x00)}) {
      if (v == good[i]) continue;
      std::vector<uint8_t> bad = good;
      bad[i] = v;
      try {
        tflite::Model m = tflite::load_tflite_buffer(ConstantBuffer::owned(bad), "fuzz.tflite");
        import_tflite_model(m, "fuzz.tflite");
        ++loaded;
      } catch (const CompileError& e) {
        EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
        ++refused;
      }
    }
  EXPECT_GT(refused, 100u);
  EXPECT_GT(loaded, 0u);  // padding and unused bytes do not matter
}

}  // namespace
}  // namespace kiln
