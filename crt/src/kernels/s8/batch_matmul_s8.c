/* KilnQBatchMatMul (kiln/nn_s8_matmul.h): TFLite's int8 BatchMatMul. Each output
 * is an exact int32 dot product of zero-point-corrected operands (the compiler
 * bounds k * 255 * 255), then the folded MultiplyByQuantizedMultiplier. */
#include "s8_binary.h"
#include "kiln/nn_s8_matmul.h"

kiln_status_t kiln_batch_matmul_s8(const kiln_batch_matmul_s8_params_t* p, const int8_t* a, const int8_t* b,
                                   const int32_t* offsets, int8_t* y) {
  int32_t bi, i, j, t;
  kiln_s8_rescale_regs_t r;
  if (p == NULL || a == NULL || b == NULL || offsets == NULL || y == NULL) return KILN_ERR_NULL_POINTER;
  if (p->batches < 0 || p->m < 0 || p->k <= 0 || p->n < 0 || p->a_offset < -127 || p->a_offset > 128 ||
      p->b_offset < -127 || p->b_offset > 128 || p->act_min > p->act_max || !kiln_s8_rescale_ok(&p->out))
    return KILN_ERR_BAD_ARGUMENT;
  r = kiln_s8_rescale_regs(&p->out);
  for (bi = 0; bi < p->batches; ++bi) {
    const int8_t* am = a + offsets[2 * bi];
    const int8_t* bm = b + offsets[2 * bi + 1];
    for (i = 0; i < p->m; ++i) {
      const int8_t* arow = am + (size_t)i * (size_t)p->k;
      for (j = 0; j < p->n; ++j) {
        const int8_t* bcol = bm + j;
        int32_t acc = 0;
        for (t = 0; t < p->k; ++t, bcol += p->n) acc += (arow[t] + p->a_offset) * (*bcol + p->b_offset);
        *y++ = kiln_s8_clamp(
            p->out_offset + kiln_s8_rescale(acc, r.multiplier, r.pre_shift, r.round_hi, r.neg_adjust, r.post_shift),
            p->act_min, p->act_max);
      }
    }
  }
  return KILN_OK;
}
