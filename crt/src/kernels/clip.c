/* ONNX Clip: out = min(max(x, min), max); NaN passes through unchanged. */
#include "kiln/elementwise.h"

kiln_status_t kiln_clip_f32(const kiln_clip_params_t* p, const float* in, float* out) {
  uint32_t i;
  if (p == NULL) return KILN_ERR_NULL_POINTER;
  if (in == NULL || out == NULL) return p->n == 0u ? KILN_OK : KILN_ERR_NULL_POINTER;
  for (i = 0; i < p->n; ++i) {
    float x = in[i];
    if (x < p->min) x = p->min;
    if (x > p->max) x = p->max;
    out[i] = x;
  }
  return KILN_OK;
}
