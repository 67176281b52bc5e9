/* KilnQSoftmax (kiln/nn_s8_softmax.h): TFLite's int8 softmax over the last axis.
 * Per row: the maximum, the sum of exp(x - max) in Q12.19 (each Q0.31 table value
 * rounded by 2^12), its reciprocal in gemmlowp fixed point, and per element the
 * product with that reciprocal rounded to 1/256 steps. */
#include "kiln/nn_s8_softmax.h"

/* gemmlowp's SaturatingRoundingDoublingHighMul: (a*b + 2^30) / 2^31 with its nudge
 * for negative products and division truncating toward zero. */
static int32_t srdhm(int32_t a, int32_t b) {
  int64_t ab;
  if (a == INT32_MIN && b == INT32_MIN) return INT32_MAX;
  ab = (int64_t)a * (int64_t)b;
  return (int32_t)((ab + (ab >= 0 ? ((int64_t)1 << 30) : 1 - ((int64_t)1 << 30))) / ((int64_t)1 << 31));
}

/* gemmlowp's SaturatingRoundingMultiplyByPOT<k> for k > 0: x * 2^k, saturating. */
static int32_t saturating_shift_left(int32_t x, int k) {
  const int32_t threshold = (int32_t)((((int64_t)1) << (31 - k)) - 1);
  if (x > threshold) return INT32_MAX;
  if (x < -threshold) return INT32_MIN;
  return (int32_t)((int64_t)x * ((int64_t)1 << k));
}

/* gemmlowp's one_over_one_plus_x_for_x_in_0_1: 1 / (1 + a) for a in [0, 1) as Q0.31,
 * by three Newton-Raphson steps in Q2.29 from the initial guess 48/17 - 32/17 * d. */
static int32_t one_over_one_plus_x(int32_t a) {
  const int64_t sum = (int64_t)a + INT32_MAX;
  const int32_t half_denominator = (int32_t)((sum + (sum >= 0 ? 1 : -1)) / 2); /* RoundingHalfSum */
  int32_t x = 1515870810 + srdhm(half_denominator, -1010580540);         /* 48/17, -32/17 in Q2.29 */
  int i;
  for (i = 0; i < 3; ++i) {
    const int32_t one_minus = (1 << 29) - srdhm(half_denominator, x);
    x = x + saturating_shift_left(srdhm(x, one_minus), 2);
  }
  return saturating_shift_left(x, 1);
}

static int leading_zeros(uint32_t v) {
#if defined(__GNUC__) || defined(__clang__)
  return v == 0u ? 32 : __builtin_clz(v);
#else
  int n = 0;
  if (v == 0u) return 32;
  while ((v & 0x80000000u) == 0u) {
    v <<= 1;
    ++n;
  }
  return n;
#endif
}

kiln_status_t kiln_softmax_s8(const kiln_softmax_s8_params_t* p, const int8_t* x, int8_t* y) {
  int32_t r, c;
  if (p == NULL || x == NULL || y == NULL) return KILN_ERR_NULL_POINTER;
  if (p->rows < 0 || p->depth < 1 || p->depth > 4095) return KILN_ERR_BAD_ARGUMENT;
  for (r = 0; r < p->rows; ++r, x += p->depth, y += p->depth) {
    const int32_t n = p->depth;
    int32_t max = -128, sum = 0, headroom, exponent;
    uint32_t scale;
    const int32_t* e;
    for (c = 0; c < n; ++c) max = x[c] > max ? x[c] : max;
    e = p->exp_table + (127 - max); /* e[v + 128] = exp of (v - max) */
    for (c = 0; c < n; ++c) {
      const int32_t v = e[x[c] + 128];
      sum += (v >> 12) + ((v >> 11) & 1); /* RoundingDivideByPOT(v, 12), v >= 0 */
    }
    if (sum <= 0) return KILN_ERR_BAD_ARGUMENT; /* a table without exp(0) = 1 */
    /* TFLite's GetReciprocal: sum = 2^(12 - headroom) * (1 + f), f in [0, 1). */
    headroom = leading_zeros((uint32_t)sum);
    scale = (uint32_t)one_over_one_plus_x((int32_t)(((uint32_t)sum << headroom) - 0x80000000u));
    exponent = 12 - headroom + 23; /* num_bits_over_unit + 31 - 8 */
    if (exponent > 31) {           /* every scaled value rounds to 0 */
      for (c = 0; c < n; ++c) y[c] = -128;
      continue;
    }
    {
      /* RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(scale, v), exponent)
       * for scale, v >= 0 is floor((scale * v + 2^30 + 2^(30 + exponent)) / 2^(31 +
       * exponent)): one multiply-accumulate, the high word shifted. */
      const uint64_t round = ((uint64_t)1 << 30) + ((uint64_t)1 << (30 + exponent));
      const int shift = exponent - 1;
      for (c = 0; c < n; ++c) {
        const uint64_t t = (uint64_t)scale * (uint32_t)e[x[c] + 128] + round;
        const int32_t v = (int32_t)((uint32_t)(t >> 32) >> shift) - 128;
        y[c] = (int8_t)(v > 127 ? 127 : v);
      }
    }
  }
  return KILN_OK;
}
