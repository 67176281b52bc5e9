// 256-entry tables for int8 -> int8 functions of one element (KilnQLookup).
//
// Each table is computed by running TFLite's own integer algorithm of the
// operator on every one of the 256 inputs, so the table is exact by construction
// (docs/quantization.md). Entry i is the output for input i - 128.
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
// RELU / RELU6 / RELU_N1_TO_1 with the output's own quantization (TFLite's ReluX).
LookupTable relu_table(QuantParams in, QuantParams out, float act_min, float act_max);

// The table as an int8 [256] constant.
ConstantPtr table_constant(const LookupTable& t);

}  // namespace kiln::tflite
