/* Adagrad (ai.onnx.preview.training): see kiln/optimizer.h for the update rule. */
#include <math.h>

#include "kiln/optimizer.h"

kiln_status_t kiln_adagrad_f32(const kiln_adagrad_params_t* p, const void* const* inputs, void* const* outputs) {
  uint32_t t, i;
  float r;
  if (p == NULL || inputs == NULL || outputs == NULL) return KILN_ERR_NULL_POINTER;
  if (p->num_tensors == 0u || p->num_tensors > KILN_OPTIMIZER_MAX_TENSORS) return KILN_ERR_BAD_ARGUMENT;
  if (inputs[0] == NULL || inputs[1] == NULL) return KILN_ERR_NULL_POINTER;
  /* The decayed learning rate is computed once per step, as the reference does. */
  r = *(const float*)inputs[0] / (1.0f + (float)*(const int64_t*)inputs[1] * p->decay_factor);
  for (t = 0; t < p->num_tensors; ++t) {
    const float* x = (const float*)inputs[2u + t];
    const float* g = (const float*)inputs[2u + p->num_tensors + t];
    const float* h = (const float*)inputs[2u + 2u * p->num_tensors + t];
    float* x_new = (float*)outputs[t];
    float* h_new = (float*)outputs[p->num_tensors + t];
    if (p->n[t] > 0u && (x == NULL || g == NULL || h == NULL || x_new == NULL || h_new == NULL))
      return KILN_ERR_NULL_POINTER;
    for (i = 0; i < p->n[t]; ++i) {
      const float gr = p->norm_coefficient * x[i] + g[i];
      const float hn = h[i] + gr * gr;
      const float xn = x[i] - r * gr / (sqrtf(hn) + p->epsilon);
      h_new[i] = hn; /* both written after every read of element i: aliasing is fine */
      x_new[i] = xn;
    }
  }
  return KILN_OK;
}
