/* ONNX MatMul, float32, with numpy batch broadcasting. */
#include "kiln/gemm.h"

kiln_status_t kiln_matmul_f32(const kiln_matmul_params_t* p, const float* a, const float* b, float* y) {
  int32_t idx[KILN_MAX_DIMS] = {0};
  uint32_t batches = 1, d, t, i, j, kk;
  int32_t oa = 0, ob = 0;
  if (p == NULL || a == NULL || b == NULL || y == NULL) return KILN_ERR_NULL_POINTER;
  if (p->batch_ndim > KILN_MAX_DIMS) return KILN_ERR_BAD_ARGUMENT;
  for (d = 0; d < p->batch_ndim; ++d) batches *= (uint32_t)p->batch_shape[d];
  for (t = 0; t < batches; ++t) {
    const float* am = a + oa * (int32_t)(p->m * p->k);
    const float* bm = b + ob * (int32_t)(p->k * p->n);
    float* ym = y + t * p->m * p->n;
    for (i = 0; i < p->m; ++i) {
      float* yr = ym + i * p->n;
      for (j = 0; j < p->n; ++j) yr[j] = 0.0f;
      for (kk = 0; kk < p->k; ++kk) {
        const float av = am[i * p->k + kk];
        const float* br = bm + kk * p->n;
        for (j = 0; j < p->n; ++j) yr[j] += av * br[j];
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
