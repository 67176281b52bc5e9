/* KilnQMul (kiln/nn_s8_elementwise.h): y = clamp(y_zp + rescale((a - a_zp) * (b - b_zp))).
 * The row loop is instantiated for contiguous inputs and for the full int8 clamp
 * range (constant bounds: one SSAT on Arm), as in add_s8.c. */
#include "s8_binary.h"

static inline void mul_row_with(const kiln_mul_s8_params_t* p, const int8_t* a, int32_t sa, const int8_t* b,
                                int32_t sb, int8_t* y, int32_t n, int contiguous, int full_range) {
  const int32_t ao = p->a_offset, bo = p->b_offset;
  const kiln_s8_rescale_regs_t r = kiln_s8_rescale_regs(&p->out);
  const int32_t off = p->out_offset, lo = p->act_min, hi = p->act_max;
  int8_t* const end = y + n;
#define MUL_S8_VALUE \
  (off + kiln_s8_rescale((*a + ao) * (*b + bo), r.multiplier, r.pre_shift, r.round_hi, r.neg_adjust, r.post_shift))
  if (contiguous) {
    if (full_range)
      for (; y != end; ++a, ++b, ++y) *y = kiln_s8_sat8(MUL_S8_VALUE);
    else
      for (; y != end; ++a, ++b, ++y) *y = kiln_s8_clamp(MUL_S8_VALUE, lo, hi);
  } else {
    if (full_range)
      for (; y != end; a += sa, b += sb, ++y) *y = kiln_s8_sat8(MUL_S8_VALUE);
    else
      for (; y != end; a += sa, b += sb, ++y) *y = kiln_s8_clamp(MUL_S8_VALUE, lo, hi);
  }
#undef MUL_S8_VALUE
}

static void mul_row(const void* params, const int8_t* a, int32_t sa, const int8_t* b, int32_t sb, int8_t* y,
                    int32_t n) {
  const kiln_mul_s8_params_t* p = (const kiln_mul_s8_params_t*)params;
  const int contiguous = sa == 1 && sb == 1;
  if (p->act_min == -128 && p->act_max == 127) {
    if (contiguous) mul_row_with(p, a, 1, b, 1, y, n, 1, 1);
    else mul_row_with(p, a, sa, b, sb, y, n, 0, 1);
  } else {
    if (contiguous) mul_row_with(p, a, 1, b, 1, y, n, 1, 0);
    else mul_row_with(p, a, sa, b, sb, y, n, 0, 0);
  }
}

kiln_status_t kiln_mul_s8(const kiln_mul_s8_params_t* p, const int8_t* a, const int8_t* b, int8_t* y) {
  if (p == NULL || a == NULL || b == NULL || y == NULL) return KILN_ERR_NULL_POINTER;
  if (!kiln_s8_rescale_ok(&p->out) || p->act_min > p->act_max || p->a_offset < -127 || p->a_offset > 128 ||
      p->b_offset < -127 || p->b_offset > 128)
    return KILN_ERR_BAD_ARGUMENT;
  return kiln_s8_broadcast_walk(&p->bc, p, a, b, y, mul_row);
}
