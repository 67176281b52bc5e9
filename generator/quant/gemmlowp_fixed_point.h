// gemmlowp's fixed-point math functions, as TFLite's integer kernels use them,
// for evaluating those kernels' algorithms at compile time (the softmax exp table).
//
// A raw int32 value v of a format with I integer bits stands for v / 2^(31 - I)
// (Q0.31 for I = 0, Q5.26 for I = 5). Additions wrap as in gemmlowp (the callers
// stay in range); products are SaturatingRoundingDoublingHighMul (quant/fixed_point.h).
#pragma once

#include <cstdint>

namespace kiln::quant {

// x * 2^exponent for exponent > 0, saturating to the int32 range
// (gemmlowp's SaturatingRoundingMultiplyByPOT with a positive exponent).
int32_t saturating_shift_left(int32_t x, int exponent);

// (a + b) / 2 rounded half away from zero (gemmlowp's RoundingHalfSum).
int32_t rounding_half_sum(int32_t a, int32_t b);

// exp(a) for a <= 0: a in Q5.26, result in Q0.31 (gemmlowp's exp_on_negative_values
// with 5 integer bits; exp(0) is INT32_MAX).
int32_t exp_on_negative_values_q5_26(int32_t a);

// 1 / (1 + a) for a in [0, 1): a and result in Q0.31
// (gemmlowp's one_over_one_plus_x_for_x_in_0_1, Newton-Raphson in Q2.29).
int32_t one_over_one_plus_x_for_x_in_0_1(int32_t a);

// TFLite's int8 softmax parameters (PreprocessSoftmaxScaling with 5 integer bits,
// CalculateInputRadius) from beta and the input scale.
struct SoftmaxScaling {
  int32_t input_multiplier = 0;  // Q31
  int input_left_shift = 0;      // >= 0
  int32_t diff_min = 0;          // differences x - max below this are skipped
};
SoftmaxScaling softmax_scaling(double beta, double input_scale);

// exp(beta * input_scale * diff) for diff = x - max in [-255, 0], as TFLite's int8
// softmax computes it (Q0.31), indexed by diff + 255; 0 where diff < diff_min.
void softmax_exp_table(const SoftmaxScaling& s, int32_t table[256]);

}  // namespace kiln::quant
