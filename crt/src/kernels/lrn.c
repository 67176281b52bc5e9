/* ONNX LRN (local response normalization across channels), float32:
 *   square_sum[c] = sum of x[c']^2 for c' in [c - floor((size-1)/2), c + ceil((size-1)/2)]
 *   y = x / (bias + alpha / size * square_sum)^beta
 * The window is clipped at the first and last channel. */
#include <math.h>

#include "kiln/normalization.h"

kiln_status_t kiln_lrn_f32(const kiln_lrn_params_t* p, const float* in, float* out) {
  uint32_t b, c, s;
  int32_t lo_off, hi_off;
  if (p == NULL || in == NULL || out == NULL) return KILN_ERR_NULL_POINTER;
  if (p->size == 0 || in == out) return KILN_ERR_BAD_ARGUMENT;
  lo_off = (int32_t)((p->size - 1) / 2);
  hi_off = (int32_t)(p->size / 2); /* ceil((size-1)/2) */
  for (b = 0; b < p->n; ++b) {
    const float* x = in + (size_t)b * p->c * p->spatial;
    float* y = out + (size_t)b * p->c * p->spatial;
    for (c = 0; c < p->c; ++c) {
      const int32_t first = (int32_t)c - lo_off < 0 ? 0 : (int32_t)c - lo_off;
      const int32_t last = (int32_t)c + hi_off > (int32_t)p->c - 1 ? (int32_t)p->c - 1 : (int32_t)c + hi_off;
      for (s = 0; s < p->spatial; ++s) {
        float sum = 0.0f;
        int32_t k;
        for (k = first; k <= last; ++k) {
          const float v = x[(size_t)k * p->spatial + s];
          sum += v * v;
        }
        y[(size_t)c * p->spatial + s] =
            x[(size_t)c * p->spatial + s] / powf(p->bias + p->alpha / (float)p->size * sum, p->beta);
      }
    }
  }
  return KILN_OK;
}
