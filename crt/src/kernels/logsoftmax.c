/* ONNX LogSoftmax, float32, over one axis of [outer, axis, inner]:
 * y = x - max - log(sum(exp(x - max))). Subtracting the maximum keeps exp() from
 * overflowing. Reads every element of a lane before writing it: out == in is fine. */
#include <math.h>

#include "kiln/reduce.h"

kiln_status_t kiln_logsoftmax_f32(const kiln_softmax_params_t* p, const float* in, float* out) {
  uint32_t o, a, i;
  if (p == NULL || in == NULL || out == NULL) return KILN_ERR_NULL_POINTER;
  for (o = 0; o < p->outer; ++o) {
    for (i = 0; i < p->inner; ++i) {
      const float* x = in + (size_t)o * p->axis * p->inner + i;
      float* y = out + (size_t)o * p->axis * p->inner + i;
      float m = -INFINITY, sum = 0.0f, lse;
      for (a = 0; a < p->axis; ++a)
        if (x[(size_t)a * p->inner] > m) m = x[(size_t)a * p->inner];
      for (a = 0; a < p->axis; ++a) sum += expf(x[(size_t)a * p->inner] - m);
      lse = m + logf(sum);
      for (a = 0; a < p->axis; ++a) y[(size_t)a * p->inner] = x[(size_t)a * p->inner] - lse;
    }
  }
  return KILN_OK;
}
