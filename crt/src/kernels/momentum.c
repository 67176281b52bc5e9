/* Momentum, standard or Nesterov (ai.onnx.preview.training): see kiln/optimizer.h. */
#include "kiln/optimizer.h"

kiln_status_t kiln_momentum_f32(const kiln_momentum_params_t* p, const void* const* inputs, void* const* outputs) {
  uint32_t t, i;
  float r, b;
  if (p == NULL || inputs == NULL || outputs == NULL) return KILN_ERR_NULL_POINTER;
  if (p->num_tensors == 0u || p->num_tensors > KILN_OPTIMIZER_MAX_TENSORS) return KILN_ERR_BAD_ARGUMENT;
  if (inputs[0] == NULL || inputs[1] == NULL) return KILN_ERR_NULL_POINTER;
  r = *(const float*)inputs[0];
  /* The gradient's coefficient is 1 on the first iteration (T == 0). */
  b = *(const int64_t*)inputs[1] > 0 ? p->beta : 1.0f;
  for (t = 0; t < p->num_tensors; ++t) {
    const float* x = (const float*)inputs[2u + t];
    const float* g = (const float*)inputs[2u + p->num_tensors + t];
    const float* v = (const float*)inputs[2u + 2u * p->num_tensors + t];
    float* x_new = (float*)outputs[t];
    float* v_new = (float*)outputs[p->num_tensors + t];
    if (p->n[t] > 0u && (x == NULL || g == NULL || v == NULL || x_new == NULL || v_new == NULL))
      return KILN_ERR_NULL_POINTER;
    for (i = 0; i < p->n[t]; ++i) {
      const float gr = p->norm_coefficient * x[i] + g[i];
      const float vn = p->alpha * v[i] + b * gr;
      const float xn = p->nesterov ? x[i] - r * (gr + p->alpha * vn) : x[i] - r * vn;
      v_new[i] = vn;
      x_new[i] = xn;
    }
  }
  return KILN_OK;
}
