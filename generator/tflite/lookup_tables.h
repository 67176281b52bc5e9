// 256-entry tables for int8 -> int8 functions of one element (KilnQLookup).
//
// Each table is computed by running TFLite's own integer algorithm of the
// operator on every one of the 256 inputs, so the table is exact by construction
// (docs/quantization.md). Entry i is the output for input i - 128. Where TFLite
// and TFLite Micro differ, the tables follow TFLite Micro's reference kernels
// (the microcontroller runtime whose outputs Kiln must reproduce).
// Parameters a kernel cannot handle throw std::invalid_argument with the reason.
#pragma once

#include <array>
#include <cstdint>

#include "ir/constant.h"

namespace kiln::tflite {

struct QuantParams {
  float scale = 1;
  int32_t zero_point = 0;
};

using LookupTable = std::array<int8_t, 256>;

// QUANTIZE int8 -> int8: MultiplyByQuantizedMultiplier(x - zx, in/out scale) + zy.
LookupTable requantize_table(QuantParams in, QuantParams out);
// RELU / RELU_N1_TO_1 with the output's own quantization (TFLite's ReluX).
LookupTable relu_table(QuantParams in, QuantParams out, float act_min, float act_max);
// RELU6 as TFLite Micro runs it: a clamp to [zero, quantized 6] of the input
// (the output shares the input's quantization).
LookupTable relu6_table(QuantParams in);
// LEAKY_RELU: x >= 0 requantized by in/out, x < 0 by in*alpha/out.
LookupTable leaky_relu_table(QuantParams in, QuantParams out, float alpha);
// LOGISTIC: gemmlowp's logistic on the input in Q4.27; the output is 1/256, -128.
LookupTable logistic_table(QuantParams in);
// TANH: gemmlowp's tanh on the input in Q4.27; the output is 1/128, 0.
LookupTable tanh_table(QuantParams in);
// HARD_SWISH: TFLite's int16 fixed-point x * relu6(x + 3) / 6.
LookupTable hard_swish_table(QuantParams in, QuantParams out);

// The table as an int8 [256] constant.
ConstantPtr table_constant(const LookupTable& t);

}  // namespace kiln::tflite
