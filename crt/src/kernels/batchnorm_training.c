/* ONNX BatchNormalization with training_mode = 1, float32. Per channel the batch
 * mean and population variance (over N and the spatial dims, sums in double) replace
 * the running statistics for normalizing, and the running statistics are blended:
 *   out_mean = mean * momentum + batch_mean * (1 - momentum)   (same for var). */
#include <math.h>

#include "kiln/normalization.h"

kiln_status_t kiln_batchnorm_training_f32(const kiln_batchnorm_training_params_t* p, const float* in,
                                          const float* scale, const float* bias, const float* mean,
                                          const float* var, float* out, float* out_mean, float* out_var) {
  uint32_t b, c, i;
  if (p == NULL || in == NULL || scale == NULL || bias == NULL || mean == NULL || var == NULL || out == NULL)
    return KILN_ERR_NULL_POINTER;
  for (c = 0; c < p->c; ++c) {
    const double count = (double)p->n * p->size;
    double sum = 0.0, sq = 0.0, bmean, bvar;
    float a, shift;
    for (b = 0; b < p->n; ++b) {
      const float* x = in + ((size_t)b * p->c + c) * p->size;
      for (i = 0; i < p->size; ++i) sum += x[i];
    }
    bmean = count > 0 ? sum / count : 0.0;
    for (b = 0; b < p->n; ++b) {
      const float* x = in + ((size_t)b * p->c + c) * p->size;
      for (i = 0; i < p->size; ++i) sq += (x[i] - bmean) * (x[i] - bmean);
    }
    bvar = count > 0 ? sq / count : 0.0;
    if (out_mean != NULL) out_mean[c] = (float)(mean[c] * p->momentum + bmean * (1.0 - p->momentum));
    if (out_var != NULL) out_var[c] = (float)(var[c] * p->momentum + bvar * (1.0 - p->momentum));
    a = (float)(scale[c] / sqrt(bvar + p->epsilon));
    shift = (float)(bias[c] - bmean * a);
    for (b = 0; b < p->n; ++b) {
      const float* x = in + ((size_t)b * p->c + c) * p->size;
      float* y = out + ((size_t)b * p->c + c) * p->size;
      for (i = 0; i < p->size; ++i) y[i] = x[i] * a + shift;
    }
  }
  return KILN_OK;
}
