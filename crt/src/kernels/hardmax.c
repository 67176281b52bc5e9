/* ONNX Hardmax, float32, over one axis of [outer, axis, inner]: 1 at the first
 * maximum of each lane, 0 elsewhere. The maximum is found before any write, so
 * out == in is fine. */
#include "kiln/reduce.h"

kiln_status_t kiln_hardmax_f32(const kiln_softmax_params_t* p, const float* in, float* out) {
  uint32_t o, a, i;
  if (p == NULL || in == NULL || out == NULL) return KILN_ERR_NULL_POINTER;
  for (o = 0; o < p->outer; ++o) {
    for (i = 0; i < p->inner; ++i) {
      const float* x = in + (size_t)o * p->axis * p->inner + i;
      float* y = out + (size_t)o * p->axis * p->inner + i;
      uint32_t best = 0u;
      for (a = 1; a < p->axis; ++a)
        if (x[(size_t)a * p->inner] > x[(size_t)best * p->inner]) best = a;
      for (a = 0; a < p->axis; ++a) y[(size_t)a * p->inner] = a == best ? 1.0f : 0.0f;
    }
  }
  return KILN_OK;
}
