/* ONNX Det, float32: det(A) by Gaussian elimination with partial pivoting in double.
 * det = product of the pivots, negated once per row swap; a zero pivot column means a
 * singular matrix (det 0). */
#include <math.h>

#include "kiln/einsum.h"

kiln_status_t kiln_det_f32(const kiln_det_params_t* p, const float* in, float* out, double* a) {
  uint32_t m, i, j, k;
  if (p == NULL || in == NULL || out == NULL || (a == NULL && p->n > 0)) return KILN_ERR_NULL_POINTER;
  for (m = 0; m < p->batch; ++m) {
    const float* x = in + (size_t)m * p->n * p->n;
    const uint32_t n = p->n;
    double det = 1.0;
    for (i = 0; i < n * n; ++i) a[i] = x[i];
    for (k = 0; k < n && det != 0.0; ++k) {
      uint32_t piv = k;
      for (i = k + 1; i < n; ++i)
        if (fabs(a[i * n + k]) > fabs(a[piv * n + k])) piv = i;
      if (a[piv * n + k] == 0.0) {
        det = 0.0;
        break;
      }
      if (piv != k) {
        for (j = 0; j < n; ++j) {
          const double t = a[k * n + j];
          a[k * n + j] = a[piv * n + j];
          a[piv * n + j] = t;
        }
        det = -det;
      }
      det *= a[k * n + k];
      for (i = k + 1; i < n; ++i) {
        const double f = a[i * n + k] / a[k * n + k];
        for (j = k; j < n; ++j) a[i * n + j] -= f * a[k * n + j];
      }
    }
    out[m] = (float)det;
  }
  return KILN_OK;
}
