/* ONNX BatchNormalization (inference), float32. Per channel the affine map is
 * worked out once: y = x * a + b with a = scale / sqrt(var + eps), b = bias - mean * a. */
#include <math.h>

#include "kiln/normalization.h"

kiln_status_t kiln_batchnorm_f32(const kiln_batchnorm_params_t* p, const float* in, const float* scale,
                                 const float* bias, const float* mean, const float* var, float* out) {
  uint32_t b, c, i;
  if (p == NULL || in == NULL || scale == NULL || bias == NULL || mean == NULL || var == NULL || out == NULL)
    return KILN_ERR_NULL_POINTER;
  for (b = 0; b < p->n; ++b) {
    for (c = 0; c < p->c; ++c) {
      const float a = scale[c] / sqrtf(var[c] + p->epsilon);
      const float shift = bias[c] - mean[c] * a;
      const float* x = in + (b * p->c + c) * p->size;
      float* y = out + (b * p->c + c) * p->size;
      for (i = 0; i < p->size; ++i) y[i] = x[i] * a + shift;
    }
  }
  return KILN_OK;
}
