/* ONNX Relu: out = max(in, 0). NaN stays NaN (the comparison is false). */
#include "kiln/elementwise.h"

kiln_status_t kiln_relu_f32(const float* in, float* out, uint32_t n) {
  uint32_t i;
  if (in == NULL || out == NULL) return n == 0u ? KILN_OK : KILN_ERR_NULL_POINTER;
  for (i = 0; i < n; ++i) {
    const float x = in[i];
    out[i] = x < 0.0f ? 0.0f : x;
  }
  return KILN_OK;
}
