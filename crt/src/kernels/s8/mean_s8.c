/* KilnQMean (kiln/nn_s8_reduce.h): TFLite's int8 mean over one contiguous run of
 * axes. The sum is exact in int32 (the compiler bounds reduce * 255); the rescale
 * is the folded form of MultiplyByQuantizedMultiplier (as in add_s8.c / mul_s8.c). */
#include "s8_binary.h"
#include "kiln/nn_s8_reduce.h"

kiln_status_t kiln_mean_s8(const kiln_mean_s8_params_t* p, const int8_t* x, int8_t* y) {
  int32_t o, r, i;
  kiln_s8_rescale_regs_t s;
  if (p == NULL || x == NULL || y == NULL) return KILN_ERR_NULL_POINTER;
  if (p->outer < 0 || p->reduce <= 0 || p->inner < 0 || p->reduce > (1 << 22) || p->x_offset < -127 ||
      p->x_offset > 128 || !kiln_s8_rescale_ok(&p->scale))
    return KILN_ERR_BAD_ARGUMENT;
  s = kiln_s8_rescale_regs(&p->scale);
  for (o = 0; o < p->outer; ++o) {
    const int8_t* row = x + (size_t)o * (size_t)p->reduce * (size_t)p->inner;
    for (i = 0; i < p->inner; ++i) {
      const int8_t* v = row + i;
      int32_t sum = 0;
      for (r = 0; r < p->reduce; ++r, v += p->inner) sum += *v;
      sum += p->x_offset * p->reduce;
      *y++ = kiln_s8_sat8(p->y_offset + kiln_s8_rescale(sum, s.multiplier, s.pre_shift, s.round_hi, s.neg_adjust,
                                                         s.post_shift));
    }
  }
  return KILN_OK;
}
