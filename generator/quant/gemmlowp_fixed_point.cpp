#include "quant/gemmlowp_fixed_point.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "quant/fixed_point.h"
#include "quant/gemmlowp_activations.h"

namespace kiln::quant {

int32_t saturating_shift_left(int32_t x, int exponent) {
  const int32_t threshold = static_cast<int32_t>((int64_t(1) << (31 - exponent)) - 1);
  if (x > threshold) return std::numeric_limits<int32_t>::max();
  if (x < -threshold) return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(int64_t(x) * (int64_t(1) << exponent));
}

int32_t rounding_half_sum(int32_t a, int32_t b) {
  const int64_t sum = int64_t(a) + int64_t(b);
  return static_cast<int32_t>((sum + (sum >= 0 ? 1 : -1)) / 2);
}

// gemmlowp's functions for any number of integer bits live in
// gemmlowp_activations.cpp; softmax uses them with 5.
int32_t exp_on_negative_values_q5_26(int32_t a) { return gemmlowp_exp_on_negative_values(a, 5); }

int32_t one_over_one_plus_x_for_x_in_0_1(int32_t a) { return gemmlowp_one_over_one_plus_x(a); }

SoftmaxScaling softmax_scaling(double beta, double input_scale) {
  constexpr int kScaledDiffIntegerBits = 5;
  SoftmaxScaling s;
  // PreprocessSoftmaxScaling: the multiplier of a difference into Q5.26, capped.
  const double real =
      std::min(beta * input_scale * double(int64_t(1) << (31 - kScaledDiffIntegerBits)), double((int64_t(1) << 31) - 1));
  // QuantizeMultiplierGreaterThanOne (TFLite's QuantizeMultiplier, no shift cap).
  int exponent = 0;
  const double q = std::frexp(real, &exponent);
  int64_t q_fixed = static_cast<int64_t>(std::round(q * double(int64_t(1) << 31)));
  if (q_fixed == (int64_t(1) << 31)) {
    q_fixed /= 2;
    ++exponent;
  }
  s.input_multiplier = static_cast<int32_t>(q_fixed);
  s.input_left_shift = exponent;
  // CalculateInputRadius(5, left_shift): the largest |difference| whose shifted value fits.
  const double max_input_rescaled = 1.0 * ((1 << kScaledDiffIntegerBits) - 1) *
                                    double(int64_t(1) << (31 - kScaledDiffIntegerBits)) /
                                    double(int64_t(1) << s.input_left_shift);
  s.diff_min = -static_cast<int32_t>(std::floor(max_input_rescaled));
  return s;
}

void softmax_exp_table(const SoftmaxScaling& s, int32_t table[256]) {
  for (int32_t diff = -255; diff <= 0; ++diff) {
    int32_t e = 0;
    if (diff >= s.diff_min) {
      // MultiplyByQuantizedMultiplierGreaterThanOne; |diff| * 2^shift < 2^31 above diff_min.
      const int32_t shifted = static_cast<int32_t>(int64_t(diff) * (int64_t(1) << s.input_left_shift));
      e = exp_on_negative_values_q5_26(saturating_rounding_doubling_high_mul(shifted, s.input_multiplier));
    }
    table[diff + 255] = e;
  }
}

}  // namespace kiln::quant
