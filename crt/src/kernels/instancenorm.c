/* ONNX InstanceNormalization, float32. Each (n, c) plane is normalized with its own
 * mean and population variance; sums are accumulated in double so long planes do not
 * lose precision. y = (x - mean) / sqrt(var + eps) * scale[c] + bias[c]. */
#include <math.h>

#include "kiln/normalization.h"

kiln_status_t kiln_instancenorm_f32(const kiln_instancenorm_params_t* p, const float* in, const float* scale,
                                    const float* bias, float* out) {
  uint32_t b, c, i;
  if (p == NULL || in == NULL || scale == NULL || bias == NULL || out == NULL) return KILN_ERR_NULL_POINTER;
  if (p->size == 0) return KILN_OK;
  for (b = 0; b < p->n; ++b) {
    for (c = 0; c < p->c; ++c) {
      const float* x = in + ((size_t)b * p->c + c) * p->size;
      float* y = out + ((size_t)b * p->c + c) * p->size;
      double sum = 0.0, sq = 0.0, mean, var;
      float a, shift;
      for (i = 0; i < p->size; ++i) sum += x[i];
      mean = sum / p->size;
      for (i = 0; i < p->size; ++i) sq += (x[i] - mean) * (x[i] - mean);
      var = sq / p->size;
      /* y = x * a + shift with a = scale / sqrt(var + eps), shift = bias - mean * a. */
      a = (float)(scale[c] / sqrt(var + p->epsilon));
      shift = (float)(bias[c] - mean * a);
      for (i = 0; i < p->size; ++i) y[i] = x[i] * a + shift;
    }
  }
  return KILN_OK;
}
