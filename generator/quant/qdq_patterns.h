// Recognition of the quantized patterns of ONNX models (QDQ form): what a
// DequantizeLinear in front of an op reads, and how the op's float result is
// quantized again (an optional Relu / Clip, then a QuantizeLinear).
//
// These are queries on the graph; they never edit it. Each returns nothing when
// the pattern does not hold and says why in `why` (the compile report lists the
// reason for every op that stays float). The rewrite (qdq_rewrite.h) builds the
// integer ops from what they return. Activations are int8 here: uint8 tensors are
// turned into int8 ones (zero point - 128) before recognition (qdq_rewrite.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace kiln::quant {

// Records why a pattern does not match (when `why` is not null) and returns false:
// `return fail(why, "...");`.
bool fail(std::string* why, const std::string& reason);

// A per-tensor quantization: real = scale * (q - zero_point). The scale is the
// model's float32 value.
struct QuantParams {
  float scale = 0.f;
  int32_t zero_point = 0;
  bool operator==(const QuantParams& o) const { return scale == o.scale && zero_point == o.zero_point; }
  bool operator!=(const QuantParams& o) const { return !(*this == o); }
};

// An int8 tensor read through a per-tensor DequantizeLinear (or the quantized
// input of a QLinear* op): `q` may be computed at run time or a constant.
struct QuantTensor {
  Value* q = nullptr;
  QuantParams params;
};

// Constant int8 weights with symmetric (zero point 0) scales, one per tensor or
// one per slice of `axis`.
struct QuantWeights {
  ConstantPtr q;               // int8
  std::vector<float> scales;   // 1 or shape[axis] values
  int64_t axis = 0;            // meaningful when scales.size() > 1
  float scale(int64_t channel) const { return scales.size() == 1 ? scales[0] : scales[size_t(channel)]; }
};

// How an op's float result becomes int8: through optional Relu / Clip nodes (the
// clamp bounds, in the output's integer domain) into one QuantizeLinear.
struct QuantOutput {
  Node* quantize = nullptr;    // the QuantizeLinear whose output the integer op takes over
  QuantParams params;
  int32_t act_min = -128, act_max = 127;
};

// Reads the scale and zero point of a per-tensor (De)QuantizeLinear-like operand pair:
// scale a one-element float32 constant, zero point a one-element int8 constant or
// absent (0).
std::optional<QuantParams> per_tensor_params(const Value* scale, const Value* zero_point, std::string* why);

// `f` is the output of a per-tensor DequantizeLinear of an int8 tensor.
std::optional<QuantTensor> dequantized(const Value* f, std::string* why);

// `f` is the output of a DequantizeLinear of constant int8 weights with zero point
// 0, per tensor or per slice of `channel_axis` (the output-channel axis of the
// op that reads them).
std::optional<QuantWeights> dequantized_weights(const Value* f, int64_t channel_axis, std::string* why);
// The same for the weight operands of a QLinear* op (w, its scale, its zero point).
std::optional<QuantWeights> constant_weights(const Value* w, const Value* scale, const Value* zero_point,
                                             int64_t channel_axis, std::string* why);

// `f` (an op's only float output) goes, through optional Relu / Clip with
// constant bounds, into exactly one per-tensor QuantizeLinear to int8, and no
// other node reads f or the Relu / Clip results.
std::optional<QuantOutput> quantized_output(const Value* f, std::string* why);

// The clamp, in the integer domain of `out`, that Relu / Clip(lo, hi) before a
// QuantizeLinear amounts to. Exact: rounding is monotone, so it commutes with
// min and max; bounds are computed as ONNX QuantizeLinear does (float32 division,
// round half to even).
int32_t quantize_bound(float real, const QuantParams& out);

// The bias of an integer conv / fully-connected layer in accumulator units
// (scale x_scale * w_scale[c]) from an int32 DequantizeLinear or a float constant.
// Nothing (and why) when it does not fit int32.
std::optional<std::vector<int32_t>> accumulator_bias(const Value* bias, float x_scale, const QuantWeights& w,
                                                     int64_t channels, std::string* why);

// ONNX's QuantizeLinear of one real value to int8 (float32 division, round half to
// even, saturation).
int32_t quantize_to_int8(float real, const QuantParams& p);

}  // namespace kiln::quant
