/* ONNX Gemm, float32: Y = alpha * A' * B' + beta * C. */
#include "kiln/gemm.h"

#include "gemm_tiles_f32.h"

/* Y = A * B' + C with B' packed in blocks of four columns: one register-blocked
 * matrix-vector product per row of A and block. */
static kiln_status_t gemm_packed(const kiln_gemm_params_t* p, const float* a, const float* b, const float* c, float* y) {
  uint32_t i, j;
  if (p->trans_a || p->alpha != 1.0f || (c != NULL && (p->c_stride_m != 0 || p->c_stride_n != 1)))
    return KILN_ERR_BAD_ARGUMENT;
  for (i = 0; i < p->m; ++i) {
    const float* wp = b;
    for (j = 0; j < p->n; j += 4u, wp += KILN_F32_PACKED_BLOCK(p->k)) {
      const uint32_t rows = p->n - j < 4u ? p->n - j : 4u;
      kiln_f32_gemv_block(wp, c != NULL ? c + j : NULL, rows, a + i * p->k, p->k, y + i * p->n + j);
    }
  }
  return KILN_OK;
}

kiln_status_t kiln_gemm_f32(const kiln_gemm_params_t* p, const float* a, const float* b, const float* c, float* y) {
  uint32_t i, j, kk;
  if (p == NULL || a == NULL || b == NULL || y == NULL) return KILN_ERR_NULL_POINTER;
  if (p->b_packed) return gemm_packed(p, a, b, c, y);
  for (i = 0; i < p->m; ++i) {
    float* yr = y + i * p->n;
    if (!p->trans_a && p->trans_b) {
      /* Y[i][j] = A[i][:] . B[j][:]: both rows contiguous (the fully connected layer case). */
      /* Four outputs at a time share each load of A's row; every dot product still
       * sums kk = 0, 1, ... in order, as the one-at-a-time loop below does. */
      const float* ar = a + i * p->k;
      for (j = 0; j + 4u <= p->n; j += 4u) {
        const float* b0 = b + j * p->k;
        const float* b1 = b0 + p->k;
        const float* b2 = b1 + p->k;
        const float* b3 = b2 + p->k;
        float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
        for (kk = 0; kk < p->k; ++kk) {
          const float av = ar[kk];
          s0 += av * b0[kk], s1 += av * b1[kk], s2 += av * b2[kk], s3 += av * b3[kk];
        }
        yr[j] = p->alpha * s0, yr[j + 1u] = p->alpha * s1, yr[j + 2u] = p->alpha * s2, yr[j + 3u] = p->alpha * s3;
      }
      for (; j < p->n; ++j) {
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
