/* ONNX Tanh. */
#include <math.h>

#include "kiln/elementwise.h"

kiln_status_t kiln_tanh_f32(const float* in, float* out, uint32_t n) {
  uint32_t i;
  if (in == NULL || out == NULL) return n == 0u ? KILN_OK : KILN_ERR_NULL_POINTER;
  for (i = 0; i < n; ++i) out[i] = tanhf(in[i]);
  return KILN_OK;
}
