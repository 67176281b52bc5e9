#include "quant/gemmlowp_fixed_point.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "quant/fixed_point.h"

namespace kiln::quant {

namespace {

constexpr int32_t kInt32Max = std::numeric_limits<int32_t>::max();
constexpr int32_t kInt32Min = std::numeric_limits<int32_t>::min();

int32_t mul(int32_t a, int32_t b) { return saturating_rounding_doubling_high_mul(a, b); }

// exp(a) for a in [-1/4, 0), a and result in Q0.31: gemmlowp's Taylor expansion
// around -1/8.
int32_t exp_on_interval_between_negative_one_quarter_and_0_excl(int32_t a) {
  const int32_t constant_term = 1895147668;  // exp(-1/8)
  const int32_t constant_1_over_3 = 715827883;
  const int32_t x = a + (1 << 28);  // a + 1/8
  const int32_t x2 = mul(x, x);
  const int32_t x3 = mul(x2, x);
  const int32_t x4 = mul(x2, x2);
  const int32_t x4_over_4 = rounding_divide_by_pot(x4, 2);
  const int32_t x4_over_24_plus_x3_over_6_plus_x2_over_2 =
      rounding_divide_by_pot(mul(x4_over_4 + x3, constant_1_over_3) + x2, 1);
  return constant_term + mul(constant_term, x + x4_over_24_plus_x3_over_6_plus_x2_over_2);
}

}  // namespace

int32_t saturating_shift_left(int32_t x, int exponent) {
  const int32_t threshold = static_cast<int32_t>((int64_t(1) << (31 - exponent)) - 1);
  if (x > threshold) return kInt32Max;
  if (x < -threshold) return kInt32Min;
  return static_cast<int32_t>(int64_t(x) * (int64_t(1) << exponent));
}

int32_t rounding_half_sum(int32_t a, int32_t b) {
  const int64_t sum = int64_t(a) + int64_t(b);
  return static_cast<int32_t>((sum + (sum >= 0 ? 1 : -1)) / 2);
}

int32_t exp_on_negative_values_q5_26(int32_t a) {
  constexpr int kFractionalBits = 26;
  const int32_t one_quarter = int32_t(1) << (kFractionalBits - 2);
  const int32_t mask = one_quarter - 1;
  // a = a_mod_quarter_minus_one_quarter - remainder, remainder a sum of powers of two >= 1/4.
  const int32_t a_mod_quarter_minus_one_quarter = (a & mask) - one_quarter;
  int32_t result =
      exp_on_interval_between_negative_one_quarter_and_0_excl(saturating_shift_left(a_mod_quarter_minus_one_quarter, 5));
  const int32_t remainder = a_mod_quarter_minus_one_quarter - a;
  // exp(-2^k) in Q0.31 for k = -2 .. 4, applied for each bit of the remainder.
  static const struct {
    int exponent;
    int32_t multiplier;
  } kBarrel[] = {{-2, 1672461947}, {-1, 1302514674}, {0, 790015084}, {1, 290630308},
                 {2, 39332535},    {3, 720401},      {4, 242}};
  for (const auto& b : kBarrel)
    if (remainder & (int32_t(1) << (kFractionalBits + b.exponent))) result = mul(result, b.multiplier);
  return a == 0 ? kInt32Max : result;
}

int32_t one_over_one_plus_x_for_x_in_0_1(int32_t a) {
  const int32_t half_denominator = rounding_half_sum(a, kInt32Max);
  const int32_t constant_48_over_17 = 1515870810;       // Q2.29
  const int32_t constant_neg_32_over_17 = -1010580540;  // Q2.29
  int32_t x = constant_48_over_17 + mul(half_denominator, constant_neg_32_over_17);
  for (int i = 0; i < 3; ++i) {
    const int32_t one_minus_half_denominator_times_x = (int32_t(1) << 29) - mul(half_denominator, x);
    x = x + saturating_shift_left(mul(x, one_minus_half_denominator_times_x), 2);  // Q4 product back to Q2.29
  }
  return saturating_shift_left(x, 1);  // x / 2 in Q1.30 read as Q0.31
}

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
