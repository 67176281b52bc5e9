// The import rules real-world .tflite files need (tests/data/field-tflite), each on
// a model built here with flatbuffers: a quantized dimension on a rank-1 tensor,
// one zero point for many scales, float16 constants behind DEQUANTIZE, sparse
// constants (CSR, block-sparse, permuted traversal) and DENSIFY, and how messages
// name an unnamed tensor.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>

#include "support/expect_contains.h"
#include "tflite/tflite_file.h"
#include "tflite/tflite_importer.h"
#include "tflite/tflite_schema_generated.h"
#include "util/error.h"

namespace kiln {
namespace {

namespace fb = kiln::tflite_fb;
using flatbuffers::FlatBufferBuilder;
using flatbuffers::Offset;

// One tensor of a test model; `data` empty for a non-constant.
struct TensorSpec {
  std::vector<int32_t> shape;
  fb::TensorType type = fb::TensorType::FLOAT32;
  std::string name;
  std::vector<uint8_t> data;
  std::vector<float> scales;
  std::vector<int64_t> zero_points;
  int32_t quantized_dimension = 0;
  // Sparsity: traversal order, block map and per level (format, dense size,
  // segments, indices); empty traversal order: dense.
  std::vector<int32_t> traversal, block_map;
  struct Level {
    fb::DimensionType format;
    int32_t dense_size;
    std::vector<int32_t> segments, indices;
  };
  std::vector<Level> levels;
};

struct OpSpec {
  fb::BuiltinOperator code;
  std::vector<int32_t> inputs, outputs;
};

template <class T>
std::vector<uint8_t> bytes_of(const std::vector<T>& v) {
  std::vector<uint8_t> out(v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(out.data(), v.data(), out.size());
  return out;
}

Offset<fb::SparsityParameters> sparsity(FlatBufferBuilder& b, const TensorSpec& t) {
  std::vector<Offset<fb::DimensionMetadata>> dims;
  for (const auto& l : t.levels) {
    Offset<void> seg = 0, idx = 0;
    auto type = fb::SparseIndexVector::NONE;
    if (l.format == fb::DimensionType::SPARSE_CSR) {
      seg = fb::CreateInt32VectorDirect(b, &l.segments).Union();
      idx = fb::CreateInt32VectorDirect(b, &l.indices).Union();
      type = fb::SparseIndexVector::Int32Vector;
    }
    dims.push_back(fb::CreateDimensionMetadata(b, l.format, l.dense_size, type, seg, type, idx));
  }
  return fb::CreateSparsityParameters(b, b.CreateVector(t.traversal),
                                      t.block_map.empty() ? 0 : b.CreateVector(t.block_map), b.CreateVector(dims));
}

// A one-subgraph model of `tensors` and `ops` (builtin codes), as bytes.
ConstantBufferPtr build_model(const std::vector<TensorSpec>& tensors, const std::vector<OpSpec>& ops,
                              const std::vector<int32_t>& inputs, const std::vector<int32_t>& outputs) {
  FlatBufferBuilder b;
  std::vector<Offset<fb::Buffer>> buffers{fb::CreateBuffer(b)};
  std::vector<Offset<fb::Tensor>> ts;
  for (const auto& t : tensors) {
    uint32_t buffer = 0;
    if (!t.data.empty()) {
      b.ForceVectorAlignment(t.data.size(), 1, 16);
      buffers.push_back(fb::CreateBuffer(b, b.CreateVector(t.data)));
      buffer = uint32_t(buffers.size() - 1);
    }
    Offset<fb::QuantizationParameters> q = 0;
    if (!t.scales.empty())
      q = fb::CreateQuantizationParameters(b, 0, 0, b.CreateVector(t.scales), b.CreateVector(t.zero_points),
                                           fb::QuantizationDetails::NONE, 0, t.quantized_dimension);
    ts.push_back(fb::CreateTensor(b, b.CreateVector(t.shape), t.type, buffer,
                                  t.name.empty() ? 0 : b.CreateString(t.name), q, false,
                                  t.traversal.empty() ? 0 : sparsity(b, t)));
  }
  std::vector<Offset<fb::OperatorCode>> codes;
  std::vector<Offset<fb::Operator>> operators;
  for (const auto& op : ops) {
    codes.push_back(fb::CreateOperatorCode(b, int8_t(op.code), 0, 1, op.code));
    operators.push_back(fb::CreateOperator(b, uint32_t(codes.size() - 1), b.CreateVector(op.inputs),
                                           b.CreateVector(op.outputs)));
  }
  auto sg = fb::CreateSubGraph(b, b.CreateVector(ts), b.CreateVector(inputs), b.CreateVector(outputs),
                               b.CreateVector(operators));
  std::vector<Offset<fb::SubGraph>> sgs{sg};
  b.Finish(fb::CreateModel(b, 3, b.CreateVector(codes), b.CreateVector(sgs), 0, b.CreateVector(buffers)),
           fb::ModelIdentifier());
  return ConstantBuffer::owned(std::vector<uint8_t>(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()));
}

tflite::Model load(const std::vector<TensorSpec>& tensors, const std::vector<OpSpec>& ops = {},
                   const std::vector<int32_t>& inputs = {}, const std::vector<int32_t>& outputs = {0}) {
  return tflite::load_tflite_buffer(build_model(tensors, ops, inputs, outputs), "test.tflite");
}

std::string load_error(const std::vector<TensorSpec>& tensors) {
  try {
    load(tensors);
  } catch (const CompileError& e) {
    return e.what();
  }
  return "(no error)";
}

// ---- quantization parameters TFLM accepts ------------------------------------------

TEST(TfliteFieldRules, QuantizedDimensionOnARank1TensorIsAxis0) {
  // person_detect's biases: three scales, the weights' axis 3 copied onto a [3] bias.
  TensorSpec bias{{3}, fb::TensorType::INT32, "bias", bytes_of(std::vector<int32_t>{1, 2, 3}), {0.5f, 0.25f, 0.125f},
                  {0, 0, 0}, 3};
  tflite::Model m = load({bias});
  EXPECT_EQ(m.tensors[0].quant.quantized_dimension, 0);
  EXPECT_EQ(m.tensors[0].quant.scale.size(), 3u);
  // On rank 2 the axis means something, and axis 3 does not exist: still refused.
  TensorSpec w{{3, 1}, fb::TensorType::INT8, "w", {1, 2, 3}, {0.5f, 0.25f, 0.125f}, {0, 0, 0}, 3};
  EXPECT_CONTAINS(load_error({w}), "tensor 0 'w' is quantized along axis 3 but has rank 2");
  // A rank-1 tensor with as many scales as elements is fine; a count that is not
  // its length is not.
  bias.scales = {0.5f, 0.25f};
  bias.zero_points = {0, 0};
  EXPECT_CONTAINS(load_error({bias}), "has 2 quantization scales for axis 0 of size 3");
}

TEST(TfliteFieldRules, OneZeroPointServesEveryScale) {
  TensorSpec w{{3, 1}, fb::TensorType::INT8, "w", {1, 2, 3}, {0.5f, 0.25f, 0.125f}, {-4}, 0};
  tflite::Model m = load({w});
  EXPECT_EQ(m.tensors[0].quant.zero_point, (std::vector<int64_t>{-4, -4, -4}));
  w.zero_points = {0, 0};  // neither one nor one per scale
  EXPECT_CONTAINS(load_error({w}), "has 3 quantization scales but 2 zero points");
}

// ---- float16 constants -------------------------------------------------------------

TEST(TfliteFieldRules, Float16ConstantBehindDequantizeIsDecodedExactly) {
  const std::vector<uint16_t> half{0x3c00, 0xc000, 0x7bff, 0x7c00, 0xfc00, 0x7e00, 0x0001, 0x03ff, 0x8000};
  TensorSpec w{{9}, fb::TensorType::FLOAT16, "w16", bytes_of(half)};
  TensorSpec y{{9}, fb::TensorType::FLOAT32, "w32"};
  auto g = import_tflite_model(load({w, y}, {{fb::BuiltinOperator::DEQUANTIZE, {0}, {1}}}, {}, {1}), "t.tflite");
  ASSERT_EQ(g->outputs.size(), 1u);
  const ConstantPtr& c = g->outputs[0]->constant;
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->dtype(), DType::Float32);
  EXPECT_TRUE(g->nodes.empty());  // decoded at compile time: no node runs it
  const std::vector<double> v = c->to_doubles();
  EXPECT_EQ(v[0], 1.0);
  EXPECT_EQ(v[1], -2.0);
  EXPECT_EQ(v[2], 65504.0);  // the largest finite float16
  EXPECT_EQ(v[3], std::numeric_limits<double>::infinity());
  EXPECT_EQ(v[4], -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(v[5]));
  EXPECT_EQ(v[6], std::ldexp(1.0, -24));            // the smallest subnormal
  EXPECT_EQ(v[7], std::ldexp(1023.0, -24));         // the largest subnormal
  EXPECT_TRUE(v[8] == 0.0 && std::signbit(v[8]));   // -0 stays negative
}

TEST(TfliteFieldRules, Float16AtRunTimeIsRefused) {
  TensorSpec x{{2}, fb::TensorType::FLOAT16, "x16"};
  TensorSpec y{{2}, fb::TensorType::FLOAT32, "y"};
  try {
    import_tflite_model(load({x, y}, {{fb::BuiltinOperator::DEQUANTIZE, {0}, {1}}}, {0}, {1}), "t.tflite");
    FAIL() << "a run-time float16 input was accepted";
  } catch (const CompileError& e) {
    EXPECT_CONTAINS(e.what(), "DEQUANTIZE (operator 0): float16 input 'x16' is computed at run time");
  }
}

// ---- sparse constants ----------------------------------------------------------------

using L = TensorSpec::Level;
constexpr auto kDense = fb::DimensionType::DENSE;
constexpr auto kCsr = fb::DimensionType::SPARSE_CSR;

TEST(TfliteFieldRules, DensifiesACsrMatrix) {
  // [[0,1,0,2],[0,0,0,0],[3,0,0,0]]: rows dense, columns CSR.
  TensorSpec t{{3, 4}, fb::TensorType::FLOAT32, "csr", bytes_of(std::vector<float>{1, 2, 3})};
  t.traversal = {0, 1};
  t.levels = {L{kDense, 3, {}, {}}, L{kCsr, 0, {0, 2, 2, 3}, {1, 3, 0}}};
  tflite::Model m = load({t});
  ASSERT_NE(m.tensors[0].data, nullptr);
  EXPECT_EQ(m.tensors[0].data->shape(), (Shape{3, 4}));
  EXPECT_EQ(m.tensors[0].data->to_doubles(), (std::vector<double>{0, 1, 0, 2, 0, 0, 0, 0, 3, 0, 0, 0}));
}

TEST(TfliteFieldRules, DensifiesAColumnMajorTraversal) {
  // traversal (1, 0): columns first; column 0 holds row 1, column 2 holds row 0.
  TensorSpec t{{2, 3}, fb::TensorType::INT8, "cols", {5, 6}};
  t.traversal = {1, 0};
  t.levels = {L{kDense, 3, {}, {}}, L{kCsr, 0, {0, 1, 1, 2}, {1, 0}}};
  tflite::Model m = load({t});
  EXPECT_EQ(m.tensors[0].data->to_doubles(), (std::vector<double>{0, 0, 6, 5, 0, 0}));
}

TEST(TfliteFieldRules, DensifiesABlockSparseMatrix) {
  // [4,4] in 2x2 blocks; only block (0, 1) is stored: rows 0-1, columns 2-3.
  TensorSpec t{{4, 4}, fb::TensorType::FLOAT32, "blocks", bytes_of(std::vector<float>{1, 2, 3, 4})};
  t.traversal = {0, 1, 2, 3};
  t.block_map = {0, 1};
  t.levels = {L{kDense, 2, {}, {}}, L{kCsr, 0, {0, 1, 1}, {1}}, L{kDense, 2, {}, {}}, L{kDense, 2, {}, {}}};
  tflite::Model m = load({t});
  EXPECT_EQ(m.tensors[0].data->to_doubles(),
            (std::vector<double>{0, 0, 1, 2, 0, 0, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0}));
  // Blocks of 1x2 along the columns only (block_map {1}): row 0 block 1, row 1 block 0.
  TensorSpec r{{2, 4}, fb::TensorType::FLOAT32, "row_blocks", bytes_of(std::vector<float>{1, 2, 3, 4})};
  r.traversal = {0, 1, 2};
  r.block_map = {1};
  r.levels = {L{kDense, 2, {}, {}}, L{kCsr, 0, {0, 1, 2}, {1, 0}}, L{kDense, 2, {}, {}}};
  EXPECT_EQ(load({r}).tensors[0].data->to_doubles(), (std::vector<double>{0, 0, 1, 2, 3, 4, 0, 0}));
}

TEST(TfliteFieldRules, InconsistentSparsityIsRefused) {
  TensorSpec t{{3, 4}, fb::TensorType::FLOAT32, "csr", bytes_of(std::vector<float>{1, 2, 3})};
  t.traversal = {0, 1};
  t.levels = {L{kDense, 3, {}, {}}, L{kCsr, 0, {0, 2, 2, 3}, {1, 4, 0}}};
  EXPECT_CONTAINS(load_error({t}), "tensor 0 'csr': its sparsity level 1 has index 4 outside [0, 4)");
  t.levels[1] = L{kCsr, 0, {0, 2, 3}, {1, 3, 0}};
  EXPECT_CONTAINS(load_error({t}), "its sparsity level 1 has 3 segment bounds, expected 4");
  t.levels[1] = L{kCsr, 0, {0, 2, 2, 2}, {1, 3}};
  EXPECT_CONTAINS(load_error({t}), "its buffer has 12 bytes but its sparsity reaches 2 values of float32");
  t.levels[1] = L{kCsr, 0, {0, 2, 1, 3}, {1, 3, 0}};
  EXPECT_CONTAINS(load_error({t}), "its segments decrease");
  t.levels = {L{kDense, 2, {}, {}}, L{kCsr, 0, {0, 2, 2, 3}, {1, 3, 0}}};
  EXPECT_CONTAINS(load_error({t}), "its sparsity level 0 has dense_size 2 but the shape gives 3");
  t.traversal = {0, 0};
  EXPECT_CONTAINS(load_error({t}), "traversal_order is not the dense dimensions then the block dimensions");
}

TEST(TfliteFieldRules, SparseFloat16ThroughDensifyAndDequantize) {
  // The field form: a sparse float16 constant -> DENSIFY -> DEQUANTIZE -> float32.
  TensorSpec w{{2, 2}, fb::TensorType::FLOAT16, "w_sparse", bytes_of(std::vector<uint16_t>{0x3c00, 0xc400})};
  w.traversal = {0, 1};
  w.levels = {L{kDense, 2, {}, {}}, L{kCsr, 0, {0, 1, 2}, {1, 0}}};
  TensorSpec dense{{2, 2}, fb::TensorType::FLOAT16, "w_dense"};
  TensorSpec y{{2, 2}, fb::TensorType::FLOAT32, "w"};
  auto g = import_tflite_model(load({w, dense, y},
                                    {{fb::BuiltinOperator::DENSIFY, {0}, {1}},
                                     {fb::BuiltinOperator::DEQUANTIZE, {1}, {2}}},
                                    {}, {2}),
                               "t.tflite");
  ASSERT_NE(g->outputs[0]->constant, nullptr);
  EXPECT_EQ(g->outputs[0]->constant->to_doubles(), (std::vector<double>{0, 1, -4, 0}));
}

TEST(TfliteFieldRules, CorruptedSparsityIsRefusedCleanly) {
  // Random byte edits of a small block-sparse model (its bytes are mostly the
  // sparsity structure): every load either succeeds or ends in one-line error.
  TensorSpec t{{4, 4}, fb::TensorType::FLOAT32, "blocks", bytes_of(std::vector<float>{1, 2, 3, 4})};
  t.traversal = {0, 1, 2, 3};
  t.block_map = {0, 1};
  t.levels = {L{kDense, 2, {}, {}}, L{kCsr, 0, {0, 1, 1}, {1}}, L{kDense, 2, {}, {}}, L{kDense, 2, {}, {}}};
  const ConstantBufferPtr model = build_model({t}, {}, {}, {0});
  const std::vector<uint8_t> good(model->data(), model->data() + model->size());
  uint64_t state = 0x2545F4914F6CDD1Dull;
  auto next = [&state]() {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  size_t refused = 0;
  for (int iteration = 0; iteration < 3000; ++iteration) {
    std::vector<uint8_t> bad = good;
    const int edits = 1 + int(next() % 3);
    for (int e = 0; e < edits; ++e) bad[next() % bad.size()] = uint8_t(next());
    try {
      tflite::load_tflite_buffer(ConstantBuffer::owned(bad), "fuzz.tflite");
    } catch (const CompileError& e) {
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
      ++refused;
    }
  }
  EXPECT_GT(refused, 300u);
}

// ---- messages -----------------------------------------------------------------------

TEST(TfliteFieldRules, AnUnnamedTensorIsNamedByItsIndex) {
  // keyword_scrambled's first operator: QUANTIZE of an unnamed int16 input.
  TensorSpec x{{2}, fb::TensorType::INT16, "", {}, {0.5f}, {0}};
  TensorSpec y{{2}, fb::TensorType::INT8, "q", {}, {0.5f}, {0}};
  try {
    import_tflite_model(load({x, y}, {{fb::BuiltinOperator::QUANTIZE, {0}, {1}}}, {0}, {1}), "t.tflite");
    FAIL() << "an int16 QUANTIZE was accepted";
  } catch (const CompileError& e) {
    const std::string msg = e.what();
    EXPECT_CONTAINS(msg, "QUANTIZE (operator 0): tensor 0 is int16, expected float32");
    EXPECT_EQ(msg.find("''"), std::string::npos) << msg;
  }
  // In the reader's messages too (an unnamed tensor with a bad axis).
  TensorSpec w{{3, 1}, fb::TensorType::INT8, "", {1, 2, 3}, {0.5f, 0.25f, 0.125f}, {0, 0, 0}, 2};
  const std::string msg = load_error({w});
  EXPECT_CONTAINS(msg, "test.tflite: tensor 0 is quantized along axis 2 but has rank 2");
}

// ---- the published models ---------------------------------------------------------

const std::filesystem::path kField = KILN_FIELD_TFLITE;

TEST(TfliteFieldModels, PersonDetectBiasesArePerChannelAlongAxis0) {
  tflite::Model m = tflite::load_tflite(kField / "tflm_person_detect.tflite");
  const tflite::Tensor& bias = m.tensors[33];  // the file says axis 3 on this [8] bias
  EXPECT_EQ(bias.shape, (Shape{8}));
  EXPECT_EQ(bias.quant.scale.size(), 8u);
  EXPECT_EQ(bias.quant.quantized_dimension, 0);
  EXPECT_NO_THROW(import_tflite(kField / "tflm_person_detect.tflite"));
}

TEST(TfliteFieldModels, FaceDetectionWeightsBecomeFloat32Constants) {
  for (const char* name : {"mp_face_detection_short.tflite", "mp_face_detection_full_sparse.tflite"}) {
    SCOPED_TRACE(name);
    auto g = import_tflite(kField / name);
    // No float16 value and no DEQUANTIZE / DENSIFY node is left: every weight is a
    // float32 constant read by a float kernel.
    for (const auto& n : g->nodes) {
      EXPECT_NE(n->op_type, "DequantizeLinear") << n->name;
      for (const Value* v : n->inputs)
        if (v) EXPECT_NE(v->dtype, DType::Float16) << n->name;
    }
  }
}

}  // namespace
}  // namespace kiln
