/* ONNX GlobalAveragePool / GlobalMaxPool / GlobalLpPool, float32: one value per N*C plane. */
#include <math.h>

#include "kiln/pool.h"
#include "rows_f32.h"

kiln_status_t kiln_global_avgpool_f32(const kiln_global_pool_params_t* p, const float* in, float* out) {
  uint32_t c;
  if (p == NULL || in == NULL || out == NULL) return KILN_ERR_NULL_POINTER;
  for (c = 0; c < p->channels; ++c) {
    const float s = kiln_f32_sum(in + c * p->size, p->size);
    out[c] = p->size > 0u ? s / (float)p->size : 0.0f;
  }
  return KILN_OK;
}

kiln_status_t kiln_global_maxpool_f32(const kiln_global_pool_params_t* p, const float* in, float* out) {
  uint32_t c, i;
  if (p == NULL || in == NULL || out == NULL) return KILN_ERR_NULL_POINTER;
  for (c = 0; c < p->channels; ++c) {
    const float* x = in + c * p->size;
    float m = -INFINITY;
    for (i = 0; i < p->size; ++i)
      if (x[i] > m || x[i] != x[i]) m = x[i];
    out[c] = m;
  }
  return KILN_OK;
}

kiln_status_t kiln_global_lppool_f32(const kiln_global_pool_params_t* p, const float* in, float* out) {
  uint32_t c, i;
  if (p == NULL || in == NULL || out == NULL) return KILN_ERR_NULL_POINTER;
  if (!(p->p > 0.0f)) return KILN_ERR_BAD_ARGUMENT;
  for (c = 0; c < p->channels; ++c) {
    const float* x = in + c * p->size;
    float s = 0.0f;
    for (i = 0; i < p->size; ++i) s += p->p == 2.0f ? x[i] * x[i] : powf(fabsf(x[i]), p->p);
    out[c] = p->p == 2.0f ? sqrtf(s) : powf(s, 1.0f / p->p);
  }
  return KILN_OK;
}
