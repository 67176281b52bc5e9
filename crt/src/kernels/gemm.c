/* ONNX Gemm, float32: Y = alpha * A' * B' + beta * C. */
#include "kiln/gemm.h"

kiln_status_t kiln_gemm_f32(const kiln_gemm_params_t* p, const float* a, const float* b, const float* c, float* y) {
  uint32_t i, j, kk;
  if (p == NULL || a == NULL || b == NULL || y == NULL) return KILN_ERR_NULL_POINTER;
  for (i = 0; i < p->m; ++i) {
    float* yr = y + i * p->n;
    if (!p->trans_a && p->trans_b) {
      /* Y[i][j] = A[i][:] . B[j][:]: both rows contiguous (the fully connected layer case). */
      const float* ar = a + i * p->k;
      for (j = 0; j < p->n; ++j) {
        const float* br = b + j * p->k;
        float s = 0.0f;
        for (kk = 0; kk < p->k; ++kk) s += ar[kk] * br[kk];
        yr[j] = p->alpha * s;
      }
    } else {
      for (j = 0; j < p->n; ++j) yr[j] = 0.0f;
      for (kk = 0; kk < p->k; ++kk) {
        const float av = p->trans_a ? a[kk * p->m + i] : a[i * p->k + kk];
        if (p->trans_b) {
          for (j = 0; j < p->n; ++j) yr[j] += av * b[j * p->k + kk];
        } else {
          const float* br = b + kk * p->n;
          for (j = 0; j < p->n; ++j) yr[j] += av * br[j];
        }
      }
      for (j = 0; j < p->n; ++j) yr[j] *= p->alpha;
    }
    if (c != NULL && p->beta != 0.0f) {
      const float* cr = c + (int32_t)i * p->c_stride_m;
      for (j = 0; j < p->n; ++j) yr[j] += p->beta * cr[(int32_t)j * p->c_stride_n];
    }
  }
  return KILN_OK;
}
