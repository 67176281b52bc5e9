/* ONNX LayerNormalization, float32 (stash_type 1: statistics in float precision or
 * better; sums are accumulated in double). Each row of the [outer, inner] view is
 * normalized by its mean and population variance:
 *   inv_std = 1 / sqrt(var + eps),  y = (x - mean) * inv_std * scale + bias. */
#include <math.h>

#include "kiln/normalization.h"

kiln_status_t kiln_layernorm_f32(const kiln_layernorm_params_t* p, const float* in, const float* scale,
                                 const float* bias, float* out, float* mean_out, float* inv_std_out) {
  uint32_t o, i;
  if (p == NULL || in == NULL || scale == NULL || out == NULL) return KILN_ERR_NULL_POINTER;
  if (p->inner == 0) return KILN_OK;
  for (o = 0; o < p->outer; ++o) {
    const float* x = in + (size_t)o * p->inner;
    float* y = out + (size_t)o * p->inner;
    double sum = 0.0, sq = 0.0, mean;
    float inv_std, m;
    for (i = 0; i < p->inner; ++i) sum += x[i];
    mean = sum / p->inner;
    for (i = 0; i < p->inner; ++i) sq += (x[i] - mean) * (x[i] - mean);
    inv_std = (float)(1.0 / sqrt(sq / p->inner + p->epsilon));
    m = (float)mean;
    if (mean_out != NULL) mean_out[o] = m;
    if (inv_std_out != NULL) inv_std_out[o] = inv_std;
    for (i = 0; i < p->inner; ++i) {
      const float v = (x[i] - m) * inv_std * scale[i];
      y[i] = bias != NULL ? v + bias[i] : v;
    }
  }
  return KILN_OK;
}
