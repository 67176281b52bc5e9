// Lookup tables with ONNX semantics for int8 -> int8 functions of one element
// (the KilnQLookup op of docs/quantization.md).
//
// ONNX computes DequantizeLinear -> f -> QuantizeLinear in float32: x = (q - zp) *
// scale, y = f(x), q' = saturate(round_half_to_even(y / scale') + zp'). The table
// holds that result for each of the 256 int8 inputs, so a lookup is exact by
// construction (up to the last bit of the float math library computing f).
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "ir/graph.h"
#include "quant/qdq_patterns.h"

namespace kiln::quant {

using RealFunction = std::function<float(float)>;

// The element function of a unary ONNX op (Relu, Clip, Sigmoid, Tanh, HardSigmoid,
// HardSwish, LeakyRelu, Elu, Selu, Identity, ...), with its attributes and constant
// bounds; nothing when the op is not such a function (why says so).
std::optional<RealFunction> unary_real_function(const Node& n, std::string* why);

// The 256 int8 entries table[i] = Q_out(f(DQ_in(i - 128))), an int8 constant [256].
ConstantPtr onnx_lookup_table(const RealFunction& f, const QuantParams& in, const QuantParams& out);

}  // namespace kiln::quant
