/*
 * Integer (int8) element-wise operators of quantized models (KilnQAdd, KilnQSub,
 * KilnQMul, KilnQLookup in docs/quantization.md), bit-exact with TFLite's
 * reference integer kernels. Everything that depends on the scales and zero points
 * is computed by the compiler: the kernels do integer arithmetic only.
 *
 * Add, Sub and Mul broadcast as numpy does (kiln_broadcast_t, merged by the
 * compiler). Every kernel here reads element i of each input before it writes
 * element i of the output, so `y` may be `a`, `b` or `x` when their shapes equal
 * the output's.
 */
#ifndef KILN_NN_S8_ELEMENTWISE_H
#define KILN_NN_S8_ELEMENTWISE_H

#include "kiln/kernel_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * An int32 value scaled by a real factor, exactly as TFLite's
 * MultiplyByQuantizedMultiplier(v, M, S) (a rounding doubling high multiply by the
 * Q31 multiplier M, then a rounding right shift by -S, or a left shift by S before
 * it) but with the two roundings folded into one 64-bit step the compiler prepared:
 *   scaled(v) = (int32)(((int64)(v * 2^pre_shift) * multiplier
 *                        + (v < 0 ? round_neg : round_pos)) >> 32) >> post_shift
 * The compiler guarantees |v| * 2^pre_shift < 2^31 for every v the kernel forms.
 * Every folded rounding has the low word 2^31 and round_neg equal to round_pos or
 * round_pos - 2^32 (the kernels check this).
 */
typedef struct {
  int64_t round_pos, round_neg;
  int32_t multiplier;  /* M, in [2^30, 2^31) */
  int32_t pre_shift;   /* 0..30 */
  int32_t post_shift;  /* 0..31 */
} kiln_s8_rescale_t;

/*
 * KilnQAdd / KilnQSub, TFLite's scheme: each input, offset by its zero point and
 * shifted left by 20, is scaled by in_scale / (2 * max(a_scale, b_scale)); the sum is
 * scaled by 2 * max_scale / (2^20 * y_scale), offset by y's zero point and clamped.
 * The compiler tabulates the first step per input value (a_term[v + 128]; b_term is
 * negated for Sub), so the kernel adds two table entries and rescales once. The
 * terms already carry the rescale's pre-shift (they are doubled), so out.pre_shift
 * must be 0.
 */
typedef struct {
  kiln_broadcast_t bc;
  int32_t a_term[256];
  int32_t b_term[256];
  kiln_s8_rescale_t out;
  int32_t out_offset; /* y_zero_point */
  int32_t act_min, act_max;
} kiln_add_s8_params_t;

kiln_status_t kiln_add_s8(const kiln_add_s8_params_t* p, const int8_t* a, const int8_t* b, int8_t* y);

/*
 * KilnQMul: y = clamp(y_zero_point + scaled((a - a_zero_point) * (b - b_zero_point)),
 * act_min, act_max) with the factor a_scale * b_scale / y_scale.
 */
typedef struct {
  kiln_broadcast_t bc;
  int32_t a_offset, b_offset; /* -a_zero_point, -b_zero_point */
  kiln_s8_rescale_t out;
  int32_t out_offset;
  int32_t act_min, act_max;
} kiln_mul_s8_params_t;

kiln_status_t kiln_mul_s8(const kiln_mul_s8_params_t* p, const int8_t* a, const int8_t* b, int8_t* y);

/* KilnQLookup: y[i] = table[x[i] + 128] for `size` elements; table has 256 entries. */
typedef struct {
  uint32_t size;
} kiln_lookup_s8_params_t;

kiln_status_t kiln_lookup_s8(const kiln_lookup_s8_params_t* p, const int8_t* x, const int8_t* table, int8_t* y);

#ifdef __cplusplus
}
#endif

#endif /* KILN_NN_S8_ELEMENTWISE_H */
