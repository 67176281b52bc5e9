/* ONNX MeanVarianceNormalization, float32, over arbitrary axes. Following the ONNX
 * function definition: y = (x - E[x]) / (sqrt(E[x^2] - E[x]^2) + 1e-9).
 * The variance is computed as E[(x - mean)^2] (same value, no cancellation); sums in
 * double. Kept and reduced dims are walked with odometer counters. */
#include <math.h>

#include "kiln/normalization.h"

/* Offset of the next position of an odometer over `shape`/`stride`; returns 0 when it wraps. */
static int mvn_next(uint32_t ndim, const uint32_t* shape, const uint32_t* stride, uint32_t* idx, size_t* off) {
  uint32_t d = ndim;
  while (d > 0) {
    --d;
    if (++idx[d] < shape[d]) {
      *off += stride[d];
      return 1;
    }
    *off -= (size_t)stride[d] * (shape[d] - 1);
    idx[d] = 0;
  }
  return 0;
}

kiln_status_t kiln_mvn_f32(const kiln_mvn_params_t* p, const float* in, float* out) {
  uint32_t kidx[KILN_MAX_DIMS] = {0}, ridx[KILN_MAX_DIMS] = {0};
  size_t base = 0, count = 1;
  uint32_t d;
  if (p == NULL || in == NULL || out == NULL) return KILN_ERR_NULL_POINTER;
  if (p->kept_ndim > KILN_MAX_DIMS || p->red_ndim > KILN_MAX_DIMS) return KILN_ERR_BAD_ARGUMENT;
  for (d = 0; d < p->kept_ndim; ++d)
    if (p->kept_shape[d] == 0) return KILN_OK;
  for (d = 0; d < p->red_ndim; ++d) count *= p->red_shape[d];
  if (count == 0) return KILN_OK;
  do {
    double sum = 0.0, sq = 0.0;
    float mean, denom;
    size_t off = 0;
    do sum += in[base + off];
    while (mvn_next(p->red_ndim, p->red_shape, p->red_stride, ridx, &off));
    mean = (float)(sum / (double)count);
    off = 0;
    do sq += ((double)in[base + off] - mean) * ((double)in[base + off] - mean);
    while (mvn_next(p->red_ndim, p->red_shape, p->red_stride, ridx, &off));
    denom = (float)sqrt(sq / (double)count) + 1e-9f;
    off = 0;
    do out[base + off] = (in[base + off] - mean) / denom;
    while (mvn_next(p->red_ndim, p->red_shape, p->red_stride, ridx, &off));
  } while (mvn_next(p->kept_ndim, p->kept_shape, p->kept_stride, kidx, &base));
  return KILN_OK;
}
