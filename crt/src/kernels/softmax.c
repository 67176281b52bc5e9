/* ONNX Softmax, float32, over one axis of a tensor seen as [outer, axis, inner].
 * Subtracting the maximum keeps exp() from overflowing. */
#include <math.h>

#include "kiln/normalization.h"

kiln_status_t kiln_softmax_f32(const kiln_softmax_params_t* p, const float* in, float* out) {
  uint32_t o, a, i;
  if (p == NULL || in == NULL || out == NULL) return KILN_ERR_NULL_POINTER;
  for (o = 0; o < p->outer; ++o) {
    for (i = 0; i < p->inner; ++i) {
      const float* x = in + o * p->axis * p->inner + i;
      float* y = out + o * p->axis * p->inner + i;
      float m = -INFINITY, sum = 0.0f;
      for (a = 0; a < p->axis; ++a)
        if (x[a * p->inner] > m) m = x[a * p->inner];
      for (a = 0; a < p->axis; ++a) {
        const float e = expf(x[a * p->inner] - m);
        y[a * p->inner] = e;
        sum += e;
      }
      for (a = 0; a < p->axis; ++a) y[a * p->inner] /= sum;
    }
  }
  return KILN_OK;
}
