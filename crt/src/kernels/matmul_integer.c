/* ONNX MatMulInteger: exact int32 Y = (A - a_zp) x (B - b_zp) with numpy batch
 * broadcasting (the batch walk of kiln_matmul_f32). */
#include "kiln/quant.h"

kiln_status_t kiln_matmul_integer_s32(const kiln_matmul_integer_params_t* p, const void* a, const void* a_zero_point,
                                      const void* b, const void* b_zero_point, int32_t* y) {
  int32_t idx[KILN_MAX_DIMS] = {0};
  uint32_t batches = 1, d, t, i, j, kk;
  int32_t oa = 0, ob = 0;
  if (p == NULL || a == NULL || b == NULL || y == NULL) return KILN_ERR_NULL_POINTER;
  if (p->batch_ndim > KILN_MAX_DIMS) return KILN_ERR_BAD_ARGUMENT;
  for (d = 0; d < p->batch_ndim; ++d) batches *= (uint32_t)p->batch_shape[d];
  for (t = 0; t < batches; ++t) {
    const uint32_t abase = (uint32_t)oa * p->m * p->k, bbase = (uint32_t)ob * p->k * p->n;
    int32_t* ym = y + t * p->m * p->n;
    for (i = 0; i < p->m; ++i) {
      const int32_t azp = a_zero_point != NULL ? kiln_load_q(a_zero_point, p->a_zp_per_row ? i : 0u, p->a_type) : 0;
      for (j = 0; j < p->n; ++j) {
        const int32_t bzp = b_zero_point != NULL ? kiln_load_q(b_zero_point, p->b_zp_per_col ? j : 0u, p->b_type) : 0;
        int32_t acc = 0;
        for (kk = 0; kk < p->k; ++kk)
          acc += (kiln_load_q(a, abase + i * p->k + kk, p->a_type) - azp) *
                 (kiln_load_q(b, bbase + kk * p->n + j, p->b_type) - bzp);
        ym[i * p->n + j] = acc;
      }
    }
    for (d = p->batch_ndim; d-- > 0u;) {
      oa += p->a_stride[d];
      ob += p->b_stride[d];
      if (++idx[d] < p->batch_shape[d]) break;
      oa -= p->a_stride[d] * p->batch_shape[d];
      ob -= p->b_stride[d] * p->batch_shape[d];
      idx[d] = 0;
    }
  }
  return KILN_OK;
}
