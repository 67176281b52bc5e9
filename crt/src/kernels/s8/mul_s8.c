/* KilnQMul (kiln/nn_s8_elementwise.h): y = clamp(y_zp + rescale((a - a_zp) * (b - b_zp))). */
#include "s8_binary.h"

static void mul_row(const void* params, const int8_t* a, int32_t sa, const int8_t* b, int32_t sb, int8_t* y,
                    int32_t n) {
  const kiln_mul_s8_params_t* p = (const kiln_mul_s8_params_t*)params;
  const int32_t ao = p->a_offset, bo = p->b_offset;
  const int32_t m = p->out.multiplier, pre = p->out.pre_shift, post = p->out.post_shift;
  const int64_t rp = p->out.round_pos, rn = p->out.round_neg;
  const int32_t off = p->out_offset, lo = p->act_min, hi = p->act_max;
  int32_t i;
  if (sa == 1 && sb == 1) {
    for (i = 0; i < n; ++i)
      y[i] = kiln_s8_clamp(off + kiln_s8_rescale((a[i] + ao) * (b[i] + bo), m, pre, rp, rn, post), lo, hi);
  } else if (sb == 0) { /* b is one value along this row */
    const int32_t vb = *b + bo;
    for (i = 0; i < n; ++i, a += sa)
      y[i] = kiln_s8_clamp(off + kiln_s8_rescale((*a + ao) * vb, m, pre, rp, rn, post), lo, hi);
  } else if (sa == 0) {
    const int32_t va = *a + ao;
    for (i = 0; i < n; ++i, b += sb)
      y[i] = kiln_s8_clamp(off + kiln_s8_rescale(va * (*b + bo), m, pre, rp, rn, post), lo, hi);
  } else {
    for (i = 0; i < n; ++i, a += sa, b += sb)
      y[i] = kiln_s8_clamp(off + kiln_s8_rescale((*a + ao) * (*b + bo), m, pre, rp, rn, post), lo, hi);
  }
}

kiln_status_t kiln_mul_s8(const kiln_mul_s8_params_t* p, const int8_t* a, const int8_t* b, int8_t* y) {
  if (p == NULL || a == NULL || b == NULL || y == NULL) return KILN_ERR_NULL_POINTER;
  if (!kiln_s8_rescale_ok(&p->out) || p->act_min > p->act_max || p->a_offset < -127 || p->a_offset > 128 ||
      p->b_offset < -127 || p->b_offset > 128)
    return KILN_ERR_BAD_ARGUMENT;
  return kiln_s8_broadcast_walk(&p->bc, p, a, b, y, mul_row);
}
