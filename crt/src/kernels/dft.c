/* ONNX DFT (opset 17): a direct O(n^2) transform, which keeps the kernel small and
 * serves any length (microcontroller signals are short). Angles use (k * t) mod
 * n_fft so they stay exact for long transforms. */
#include <math.h>

#include "kiln/signal.h"

kiln_status_t kiln_dft_f32(const kiln_dft_params_t* p, const float* in, float* out) {
  const double two_pi = 6.283185307179586476925286766559;
  uint32_t o, k, t, i, n_use;
  double sign, scale;
  if (p == NULL) return KILN_ERR_NULL_POINTER;
  if ((p->in_comps != 1u && p->in_comps != 2u) || p->n_fft == 0u || p->n_out > p->n_fft)
    return KILN_ERR_BAD_ARGUMENT;
  if ((size_t)p->outer * p->n_out * p->inner == 0u) return KILN_OK;
  if (in == NULL || out == NULL) return KILN_ERR_NULL_POINTER;
  n_use = p->n_in < p->n_fft ? p->n_in : p->n_fft;
  sign = p->inverse ? 1.0 : -1.0;
  scale = p->inverse ? 1.0 / (double)p->n_fft : 1.0;
  for (o = 0; o < p->outer; ++o) {
    for (i = 0; i < p->inner; ++i) {
      for (k = 0; k < p->n_out; ++k) {
        double re = 0.0, im = 0.0;
        float* y = out + (((size_t)o * p->n_out + k) * p->inner + i) * 2u;
        for (t = 0; t < n_use; ++t) {
          const float* x = in + (((size_t)o * p->n_in + t) * p->inner + i) * p->in_comps;
          const uint64_t m = ((uint64_t)k * t) % p->n_fft;
          const double a = sign * two_pi * (double)m / (double)p->n_fft;
          const double c = cos(a), s = sin(a);
          const double xr = x[0], xi = p->in_comps == 2u ? x[1] : 0.0;
          re += xr * c - xi * s;
          im += xr * s + xi * c;
        }
        y[0] = (float)(re * scale);
        y[1] = (float)(im * scale);
      }
    }
  }
  return KILN_OK;
}
