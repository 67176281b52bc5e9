/* ONNX Sigmoid: out = 1 / (1 + exp(-x)), written so exp never overflows:
 * for x < 0 it uses exp(x) / (1 + exp(x)). */
#include <math.h>

#include "kiln/elementwise.h"

kiln_status_t kiln_sigmoid_f32(const float* in, float* out, uint32_t n) {
  uint32_t i;
  if (in == NULL || out == NULL) return n == 0u ? KILN_OK : KILN_ERR_NULL_POINTER;
  for (i = 0; i < n; ++i) {
    const float x = in[i];
    if (x >= 0.0f) {
      out[i] = 1.0f / (1.0f + expf(-x));
    } else {
      const float e = expf(x);
      out[i] = e / (1.0f + e);
    }
  }
  return KILN_OK;
}
