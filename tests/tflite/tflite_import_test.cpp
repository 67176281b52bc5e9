// The TFLite reader and importer on the MLPerf Tiny models: what the file says
// arrives in the integer IR (docs/quantization.md) with TFLite's padding, scales
// and clamp bounds.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "support/expect_contains.h"
#include "tflite/lookup_tables.h"
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

// Constant data stored after the flatbuffer (Buffer.offset/size, the layout of
// models over 2 GB) reads the same as data inside it.
TEST(TfliteFile, BufferDataOutsideTheFlatbuffer) {
  tflite::Model inside = tflite::load_tflite(kTests / "models" / "tiny_int8_conv.tflite");
  tflite::Model outside = tflite::load_tflite(kTests / "models" / "tiny_int8_conv_external.tflite");
  ASSERT_EQ(inside.tensors.size(), outside.tensors.size());
  ASSERT_NE(outside.tensors[1].data, nullptr);
  EXPECT_EQ(outside.tensors[1].data->to_int64s(), inside.tensors[1].data->to_int64s());
  EXPECT_EQ(outside.tensors[2].data->to_int64s(), inside.tensors[2].data->to_int64s());
  EXPECT_NO_THROW(import_tflite(kTests / "models" / "tiny_int8_conv_external.tflite"));
}

// Every single-byte corruption of the small test models (each op mapping's
// checks are reached) either still loads and imports or is refused with a
// CompileError: never a crash, a hang or another exception (the host tests run
// under ASan/UBSan).
TEST(TfliteFile, EveryByteCorruptionIsRefusedCleanly) {
  for (const char* name : {"tiny_int8_conv", "int8_misc", "int8_ops", "int8_tables", "int8_lstm", "float_cnn",
                           "float_data_movement", "float_lstm", "float_resize_matmul", "float_misc"}) {
    const std::vector<uint8_t> good = read_bytes(kTests / "models" / (std::string(name) + ".tflite"));
    ASSERT_GT(good.size(), 100u) << name;
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
    EXPECT_GT(refused, 100u) << name;
    EXPECT_GT(loaded, 0u) << name;  // padding and unused bytes do not matter
  }
}

std::vector<int8_t> table_of(const Node* n) {
  std::vector<int8_t> out;
  for (int64_t v : n->inputs.at(1)->constant->to_int64s()) out.push_back(int8_t(v));
  return out;
}
std::vector<int8_t> as_vector(const tflite::LookupTable& t) { return {t.begin(), t.end()}; }

// Int8 element-wise functions become tables; CONCATENATION requantizes the inputs
// whose quantization differs from the output's; PAD pads with the zero point.
TEST(TfliteImport, Int8LookupsConcatRequantizationAndPad) {
  auto g = import_tflite(kTests / "models" / "int8_misc.tflite");
  auto h = histogram(*g);
  // 4 functions; the 3 concat inputs that need requantizing fold their requantization
  // into the function's table; QUANTIZE int8->int8 after the pad.
  EXPECT_EQ(h["KilnQLookup"], 5);
  // The float -> int8 boundary rounds as TFLite does (not ONNX's QuantizeLinear).
  EXPECT_EQ(h["KilnQQuantizeF32"], 1);
  EXPECT_EQ(h["QuantizeLinear"], 0);
  EXPECT_EQ(h["DequantizeLinear"], 1);
  const tflite::QuantParams xq{0.05f, 3};
  const Node* leaky = node_named(*g, "LEAKY_RELU_4");
  ASSERT_NE(leaky, nullptr);
  EXPECT_EQ(table_of(leaky), as_vector(tflite::leaky_relu_table(xq, xq, 0.1f)));
  // The logistic output (1/256, -128) is requantized to the concat's (0.05, 3) in
  // the same table; the leaky output already has it and goes in directly.
  const Node* cat = nullptr;
  for (const auto& n : g->nodes)
    if (n->op_type == "Concat") cat = n.get();
  ASSERT_NE(cat, nullptr);
  ASSERT_EQ(cat->inputs.size(), 4u);
  ASSERT_NE(cat->inputs[0]->producer, nullptr);
  EXPECT_EQ(cat->inputs[0]->producer->op_type, "KilnQLookup");
  const auto logistic = tflite::logistic_table(xq);
  const auto requantize = tflite::requantize_table({1.0f / 256, -128}, xq);
  std::vector<int8_t> composed;
  for (int8_t v : logistic) composed.push_back(requantize[v + 128]);
  EXPECT_EQ(table_of(cat->inputs[0]->producer), composed);
  EXPECT_EQ(cat->inputs[0]->producer->inputs[0]->name, "xq");
  EXPECT_EQ(cat->inputs[3]->producer, leaky);
  EXPECT_EQ(cat->attr_int("axis", -1), 3);
  const Node* pad = node_named(*g, "PAD_6");
  ASSERT_NE(pad, nullptr);
  EXPECT_EQ(pad->inputs[1]->constant->to_int64s(), (std::vector<int64_t>{0, 1, 0, 0, 0, 1, 0, 0}));
  EXPECT_EQ(pad->inputs[2]->constant->as_int64(0), 3);
  // Nearest-neighbour resize 4x2 -> 8x3 with half-pixel centers: TFLite's source
  // rows floor((i + 0.5) * 0.5) and columns floor((j + 0.5) * 2/3).
  const Node* rows = node_named(*g, "RESIZE_NEAREST_NEIGHBOR_7/rows");
  const Node* cols = node_named(*g, "RESIZE_NEAREST_NEIGHBOR_7/columns");
  ASSERT_NE(rows, nullptr);
  ASSERT_NE(cols, nullptr);
  EXPECT_EQ(rows->inputs[1]->constant->to_int64s(), (std::vector<int64_t>{0, 0, 1, 1, 2, 2, 3, 3}));
  EXPECT_EQ(cols->inputs[1]->constant->to_int64s(), (std::vector<int64_t>{0, 1, 1}));
  EXPECT_EQ(rows->outputs[0]->dtype, DType::Int8);
}


TEST(TfliteImport, Int8MeanResizeBatchMatMulBecomeIntegerOps) {
  auto g = import_tflite(kTests / "models" / "int8_ops.tflite");
  auto h = histogram(*g);
  EXPECT_EQ(h["KilnQQuantizeF32"], 2);
  EXPECT_EQ(h["KilnQMean"], 2);
  EXPECT_EQ(h["KilnQResizeBilinear"], 3);
  EXPECT_EQ(h["KilnQBatchMatMul"], 3);
  EXPECT_EQ(h["QuantizeLinear"] + h["ReduceMean"] + h["Resize"] + h["MatMul"], 0);
  // Contiguous axes reduce in place; scale ratio in double from the float32 scales.
  const Node* hw = node_named(*g, "MEAN_2");
  ASSERT_NE(hw, nullptr);
  EXPECT_EQ(hw->attr_ints("axes"), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(hw->attr_float("requant_scale", 0), double(0.125f) / double(0.05f));
  // Axes {1, 3} are not contiguous: a Transpose moves them last first.
  const Node* hc = node_named(*g, "MEAN_3");
  ASSERT_NE(hc, nullptr);
  EXPECT_EQ(hc->attr_ints("axes"), (std::vector<int64_t>{2, 3}));
  ASSERT_NE(hc->inputs[0]->producer, nullptr);
  EXPECT_EQ(hc->inputs[0]->producer->op_type, "Transpose");
  EXPECT_EQ(hc->inputs[0]->producer->attr_ints("perm"), (std::vector<int64_t>{0, 2, 1, 3}));
  // adj_x transposes the run-time operand; the constant one is read as it is.
  const Node* gram = node_named(*g, "BATCH_MATMUL_10");
  ASSERT_NE(gram, nullptr);
  ASSERT_NE(gram->inputs[0]->producer, nullptr);
  EXPECT_EQ(gram->inputs[0]->producer->op_type, "Transpose");
  EXPECT_EQ(gram->attr_float("requant_scale", 0), double(0.125f) * double(0.125f) / double(8.0f));
  const Node* half = node_named(*g, "RESIZE_BILINEAR_4");
  ASSERT_NE(half, nullptr);
  EXPECT_EQ(half->attr_int("half_pixel_centers", 0), 1);
  EXPECT_EQ(half->attr_int("align_corners", 1), 0);
}

TEST(TfliteImport, Int8LstmBecomesKilnQLstmWithTflmScales) {
  auto g = import_tflite(kTests / "models" / "int8_lstm.tflite");
  auto h = histogram(*g);
  EXPECT_EQ(h["KilnQLstm"], 2);
  EXPECT_EQ(h["LSTM"], 0);
  const Node* n = node_named(*g, "UNIDIRECTIONAL_SEQUENCE_LSTM_1");
  ASSERT_NE(n, nullptr);
  ASSERT_EQ(n->inputs.size(), 5u);
  EXPECT_EQ(n->inputs[1]->shape, (Shape{4, 5, 3}));  // gates input, forget, cell, output
  EXPECT_EQ(n->inputs[2]->shape, (Shape{4, 5, 5}));
  EXPECT_EQ(n->inputs[3]->shape, (Shape{4, 5}));
  EXPECT_EQ(n->inputs[4]->dtype, DType::UInt16);
  EXPECT_EQ(n->inputs[4]->constant->as_int64(0), 32768);  // sigmoid(0) in Q0.16
  EXPECT_EQ(n->attr_int("cell_scale_power", 0), -11);
  EXPECT_EQ(n->attr_int("cell_clip", -1), 0);
  // Gate products in Q3.12: x_scale * w_scale / 2^-12, in double from the float32 scales.
  EXPECT_EQ(n->attr_floats("input_fc_scale")[0], double(0.05f) * double(0.004f) / double(1.0f / 4096));
  const Node* tm = node_named(*g, "UNIDIRECTIONAL_SEQUENCE_LSTM_2");
  ASSERT_NE(tm, nullptr);
  EXPECT_EQ(tm->attr_int("time_major", 0), 1);
  EXPECT_EQ(tm->attr_int("cell_clip", 0), 1024);  // 0.5 / 2^-11
}

// Random corruptions of a real model (a few bytes each, fixed seed), including
// truncations: each loads and imports or is refused with a one-line CompileError.
TEST(TfliteFile, RandomCorruptionsOfARealModelAreRefusedCleanly) {
  const std::vector<uint8_t> good = read_bytes(kMlperf / "kws_ref_model.tflite");
  ASSERT_GT(good.size(), 1000u);
  uint64_t state = 0x9E3779B97F4A7C15ull;
  auto next = [&state]() {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  size_t refused = 0;
  for (int iteration = 0; iteration < 400; ++iteration) {
    std::vector<uint8_t> bad = good;
    const int edits = 1 + int(next() % 8);
    for (int e = 0; e < edits; ++e) bad[next() % bad.size()] = uint8_t(next());
    if (iteration % 10 == 0) bad.resize(next() % bad.size());
    try {
      tflite::Model m = tflite::load_tflite_buffer(ConstantBuffer::owned(bad), "fuzz.tflite");
      import_tflite_model(m, "fuzz.tflite");
    } catch (const CompileError& e) {
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
      ++refused;
    }
  }
  EXPECT_GT(refused, 40u);
}

}  // namespace
}  // namespace kiln
