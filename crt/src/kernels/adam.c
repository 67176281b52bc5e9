/* Adam (ai.onnx.preview.training): see kiln/optimizer.h for the update rule. */
#include <math.h>

#include "kiln/optimizer.h"

kiln_status_t kiln_adam_f32(const kiln_adam_params_t* p, const void* const* inputs, void* const* outputs) {
  uint32_t t, i;
  float r;
  int64_t step;
  if (p == NULL || inputs == NULL || outputs == NULL) return KILN_ERR_NULL_POINTER;
  if (p->num_tensors == 0u || p->num_tensors > KILN_OPTIMIZER_MAX_TENSORS) return KILN_ERR_BAD_ARGUMENT;
  if (inputs[0] == NULL || inputs[1] == NULL) return KILN_ERR_NULL_POINTER;
  r = *(const float*)inputs[0];
  step = *(const int64_t*)inputs[1];
  if (step > 0) { /* bias correction of both moments, folded into the learning rate */
    const double tt = (double)step;
    r = (float)((double)r * sqrt(1.0 - pow((double)p->beta, tt)) / (1.0 - pow((double)p->alpha, tt)));
  }
  for (t = 0; t < p->num_tensors; ++t) {
    const uint32_t k = p->num_tensors;
    const float* x = (const float*)inputs[2u + t];
    const float* g = (const float*)inputs[2u + k + t];
    const float* v = (const float*)inputs[2u + 2u * k + t];
    const float* h = (const float*)inputs[2u + 3u * k + t];
    float* x_new = (float*)outputs[t];
    float* v_new = (float*)outputs[k + t];
    float* h_new = (float*)outputs[2u * k + t];
    if (p->n[t] > 0u && (x == NULL || g == NULL || v == NULL || h == NULL || x_new == NULL || v_new == NULL ||
                         h_new == NULL))
      return KILN_ERR_NULL_POINTER;
    for (i = 0; i < p->n[t]; ++i) {
      const float gr = p->norm_coefficient * x[i] + g[i];
      const float vn = p->alpha * v[i] + (1.0f - p->alpha) * gr;
      const float hn = p->beta * h[i] + (1.0f - p->beta) * gr * gr;
      const float xn = x[i] - r * (vn / (sqrtf(hn) + p->epsilon));
      v_new[i] = vn;
      h_new[i] = hn;
      x_new[i] = (1.0f - p->norm_coefficient_post) * xn;
    }
  }
  return KILN_OK;
}
