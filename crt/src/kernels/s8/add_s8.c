/* KilnQAdd and KilnQSub (kiln/nn_s8_elementwise.h): y = clamp(y_zp + rescale(a_term[a]
 * + b_term[b])). The per-input terms (TFLite's offset, <<20 and first rescale) are
 * tables the compiler filled (already shifted by the rescale's pre-shift, so
 * out.pre_shift is 0); Sub is Add with b_term negated. The row loop is
 * instantiated for contiguous inputs and for the full int8 clamp range (constant
 * bounds: one SSAT on Arm) so that everything it needs stays in registers. */
#include "s8_binary.h"

static inline void add_row_with(const kiln_add_s8_params_t* p, const int8_t* a, int32_t sa, const int8_t* b,
                                int32_t sb, int8_t* y, int32_t n, int contiguous, int full_range) {
  const int32_t* ta = p->a_term + 128;
  const int32_t* tb = p->b_term + 128;
  const kiln_s8_rescale_regs_t r = kiln_s8_rescale_regs(&p->out);
  const int32_t off = p->out_offset;
  const int32_t lo = p->act_min, hi = p->act_max;
  int8_t* const end = y + n;
#define ADD_S8_VALUE (off + kiln_s8_rescale(ta[*a] + tb[*b], r.multiplier, 0, r.round_hi, r.neg_adjust, r.post_shift))
  if (contiguous) {
    if (full_range)
      for (; y != end; ++a, ++b, ++y) *y = kiln_s8_sat8(ADD_S8_VALUE);
    else
      for (; y != end; ++a, ++b, ++y) *y = kiln_s8_clamp(ADD_S8_VALUE, lo, hi);
  } else {
    if (full_range)
      for (; y != end; a += sa, b += sb, ++y) *y = kiln_s8_sat8(ADD_S8_VALUE);
    else
      for (; y != end; a += sa, b += sb, ++y) *y = kiln_s8_clamp(ADD_S8_VALUE, lo, hi);
  }
#undef ADD_S8_VALUE
}

static void add_row(const void* params, const int8_t* a, int32_t sa, const int8_t* b, int32_t sb, int8_t* y,
                    int32_t n) {
  const kiln_add_s8_params_t* p = (const kiln_add_s8_params_t*)params;
  const int contiguous = sa == 1 && sb == 1;
  if (p->act_min == -128 && p->act_max == 127) {
    if (contiguous) add_row_with(p, a, 1, b, 1, y, n, 1, 1);
    else add_row_with(p, a, sa, b, sb, y, n, 0, 1);
  } else {
    if (contiguous) add_row_with(p, a, 1, b, 1, y, n, 1, 0);
    else add_row_with(p, a, sa, b, sb, y, n, 0, 0);
  }
}

kiln_status_t kiln_add_s8(const kiln_add_s8_params_t* p, const int8_t* a, const int8_t* b, int8_t* y) {
  if (p == NULL || a == NULL || b == NULL || y == NULL) return KILN_ERR_NULL_POINTER;
  if (!kiln_s8_rescale_ok(&p->out) || p->out.pre_shift != 0 || p->act_min > p->act_max) return KILN_ERR_BAD_ARGUMENT;
  return kiln_s8_broadcast_walk(&p->bc, p, a, b, y, add_row);
}
