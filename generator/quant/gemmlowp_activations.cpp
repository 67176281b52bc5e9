#include "quant/gemmlowp_activations.h"

#include <limits>
#include <stdexcept>

#include "quant/fixed_point.h"
#include "quant/gemmlowp_fixed_point.h"

namespace kiln::quant {

namespace {

constexpr int32_t kInt32Max = std::numeric_limits<int32_t>::max();
constexpr int32_t kInt32Min = std::numeric_limits<int32_t>::min();

// Raw int32 arithmetic that wraps like gemmlowp's (two's complement).
int32_t wrap_add(int32_t a, int32_t b) { return int32_t(uint32_t(a) + uint32_t(b)); }
int32_t wrap_sub(int32_t a, int32_t b) { return int32_t(uint32_t(a) - uint32_t(b)); }
int32_t wrap_neg(int32_t a) { return int32_t(0u - uint32_t(a)); }
int32_t mul(int32_t a, int32_t b) { return saturating_rounding_doubling_high_mul(a, b); }

// SaturatingRoundingMultiplyByPOT: a left shift saturating to int32, or a
// rounding right shift.
int32_t multiply_by_pot(int32_t x, int exponent) {
  if (exponent == 0) return x;
  if (exponent < 0) return rounding_divide_by_pot(x, -exponent);
  const int32_t threshold = int32_t((int64_t(1) << (31 - exponent)) - 1);
  if (x > threshold) return kInt32Max;
  if (x < -threshold) return kInt32Min;
  return int32_t(uint32_t(x) << exponent);
}

// Rescale from `from` integer bits to `to` integer bits.
int32_t rescale(int32_t x, int from, int to) { return multiply_by_pot(x, from - to); }

// exp(a) for a in [-1/4, 0), a and result in Q0.31.
int32_t exp_on_interval_between_negative_one_quarter_and_0_excl(int32_t a) {
  const int32_t constant_term = 1895147668;     // exp(-1/8)
  const int32_t constant_1_over_3 = 715827883;  // 1/3
  const int32_t x = wrap_add(a, 1 << 28);       // a + 1/8
  const int32_t x2 = mul(x, x);
  const int32_t x3 = mul(x2, x);
  const int32_t x4 = mul(x2, x2);
  const int32_t x4_over_4 = multiply_by_pot(x4, -2);
  const int32_t poly = multiply_by_pot(wrap_add(mul(wrap_add(x4_over_4, x3), constant_1_over_3), x2), -1);
  return wrap_add(constant_term, mul(constant_term, wrap_add(x, poly)));
}

// Newton-Raphson for 1 / (1 + a), a in Q0.31, leaving x in Q2.29 (gemmlowp's
// loop shared by one_over_one_plus_x and one_minus_x_over_one_plus_x).
int32_t newton_reciprocal_q2(int32_t a) {
  const int32_t half_denominator = rounding_half_sum(a, kInt32Max);  // F0::One() is INT32_MAX
  const int32_t constant_48_over_17 = 1515870810;
  const int32_t constant_neg_32_over_17 = -1010580540;
  const int32_t one_q2 = 1 << 29;
  int32_t x = wrap_add(constant_48_over_17, mul(half_denominator, constant_neg_32_over_17));
  for (int i = 0; i < 3; ++i) {
    const int32_t half_denominator_times_x = mul(half_denominator, x);               // Q2
    const int32_t one_minus = wrap_sub(one_q2, half_denominator_times_x);           // Q2
    x = wrap_add(x, rescale(mul(x, one_minus), 4, 2));                               // Q4 -> Q2
  }
  return x;
}

// (1 - a) / (1 + a) for a in (0, 1), Q0.31.
int32_t one_minus_x_over_one_plus_x_for_x_in_0_1(int32_t a) {
  return rescale(wrap_sub(newton_reciprocal_q2(a), 1 << 29), 2, 0);
}

}  // namespace

int32_t gemmlowp_one_over_one_plus_x(int32_t a) {
  // ExactMulByPot<-1> turns Q2 into Q1 with the same raw; Rescale<0> from Q1.
  return rescale(newton_reciprocal_q2(a), 1, 0);
}

int32_t gemmlowp_exp_on_negative_values(int32_t a, int integer_bits) {
  if (integer_bits < 0 || integer_bits > 6) throw std::logic_error("gemmlowp_exp_on_negative_values: integer bits");
  const int fractional_bits = 31 - integer_bits;
  const int32_t one_quarter = int32_t(1) << (fractional_bits - 2);
  const int32_t mask = one_quarter - 1;
  const int32_t a_mod_quarter_minus_one_quarter = wrap_sub(a & mask, one_quarter);
  int32_t result =
      exp_on_interval_between_negative_one_quarter_and_0_excl(rescale(a_mod_quarter_minus_one_quarter, integer_bits, 0));
  const int32_t remainder = wrap_sub(a_mod_quarter_minus_one_quarter, a);
  // exp(-2^k) in Q0.31 for k = -2..4, applied for each bit of the remainder.
  static const struct {
    int exponent;
    int32_t multiplier;
  } kBarrel[] = {{-2, 1672461947}, {-1, 1302514674}, {0, 790015084}, {1, 290630308},
                 {2, 39332535},    {3, 720401},      {4, 242}};
  for (const auto& b : kBarrel) {
    if (integer_bits <= b.exponent) continue;
    const int shift = fractional_bits + b.exponent;
    if (remainder & (int32_t(1) << shift)) result = mul(result, b.multiplier);
  }
  if (integer_bits > 5) {
    const int32_t clamp = -(int32_t(1) << (36 - integer_bits));  // -32
    if (a < clamp) result = 0;
  }
  if (a == 0) result = kInt32Max;
  return result;
}

int32_t gemmlowp_logistic(int32_t a, int integer_bits) {
  if (a == 0) return 1 << 30;  // one half
  const int32_t abs_input = a > 0 ? a : wrap_neg(a);
  const int32_t result_if_positive =
      gemmlowp_one_over_one_plus_x(gemmlowp_exp_on_negative_values(wrap_neg(abs_input), integer_bits));
  return a > 0 ? result_if_positive : wrap_sub(kInt32Max, result_if_positive);
}

int32_t gemmlowp_tanh(int32_t a, int integer_bits) {
  if (a == 0) return 0;
  const int32_t n = a < 0 ? a : wrap_neg(a);  // -|a|
  // neg_tanh_on_negative_values: exp of 2n, read with one more integer bit
  // (ExactMulByPot<1> keeps the raw value).
  const int32_t t = one_minus_x_over_one_plus_x_for_x_in_0_1(gemmlowp_exp_on_negative_values(n, integer_bits + 1));
  return a < 0 ? wrap_neg(t) : t;
}

int16_t saturating_rounding_doubling_high_mul_16(int16_t a, int16_t b) {
  if (a == b && a == std::numeric_limits<int16_t>::min()) return std::numeric_limits<int16_t>::max();
  const int32_t ab = int32_t(a) * int32_t(b);
  const int32_t nudge = ab >= 0 ? (1 << 14) : (1 - (1 << 14));
  return int16_t((ab + nudge) / (1 << 15));
}

int16_t rounding_divide_by_pot_16(int16_t x, int exponent) {
  const int32_t mask = int32_t((int64_t(1) << exponent) - 1);
  const int32_t remainder = int32_t(x) & mask;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return int16_t((int32_t(x) >> exponent) + (remainder > threshold ? 1 : 0));
}

}  // namespace kiln::quant
