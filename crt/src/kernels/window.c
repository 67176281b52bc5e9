/* ONNX HannWindow / HammingWindow / BlackmanWindow (opset 17). */
#include <math.h>

#include "kiln/signal.h"

kiln_status_t kiln_window_f32(const kiln_window_params_t* p, const void* size, float* out) {
  const double two_pi = 6.283185307179586476925286766559;
  uint32_t i;
  int64_t n;
  double denom;
  if (p == NULL || size == NULL) return KILN_ERR_NULL_POINTER;
  if (p->kind > KILN_WINDOW_BLACKMAN) return KILN_ERR_BAD_ARGUMENT;
  if (p->size_bytes == 8u) n = *(const int64_t*)size;
  else if (p->size_bytes == 4u) n = *(const int32_t*)size;
  else return KILN_ERR_BAD_ARGUMENT;
  if (n != (int64_t)p->count) return KILN_ERR_BAD_ARGUMENT;
  if (p->count == 0u) return KILN_OK;
  if (out == NULL) return KILN_ERR_NULL_POINTER;
  /* A symmetric window of one point has N - 1 = 0: its value is the formula at 0. */
  denom = p->periodic ? (double)p->count : (double)p->count - 1.0;
  for (i = 0; i < p->count; ++i) {
    const double a = denom > 0.0 ? two_pi * (double)i / denom : 0.0;
    double v;
    if (p->kind == KILN_WINDOW_HANN) v = 0.5 - 0.5 * cos(a);
    else if (p->kind == KILN_WINDOW_HAMMING) v = 25.0 / 46.0 - (21.0 / 46.0) * cos(a);
    else v = 0.42 - 0.5 * cos(a) + 0.08 * cos(2.0 * a);
    out[i] = (float)v;
  }
  return KILN_OK;
}
