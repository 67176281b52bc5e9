/* ONNX STFT (opset 17): a direct DFT of each (windowed) frame. */
#include <math.h>

#include "kiln/signal.h"

kiln_status_t kiln_stft_f32(const kiln_stft_params_t* p, const float* signal, const int64_t* frame_step,
                            const float* window, const int64_t* frame_length, float* out) {
  const double two_pi = 6.283185307179586476925286766559;
  int64_t step, fl;
  uint32_t b, f, k, t;
  if (p == NULL || frame_step == NULL) return KILN_ERR_NULL_POINTER;
  if (p->in_comps != 1u && p->in_comps != 2u) return KILN_ERR_BAD_ARGUMENT;
  step = *frame_step;
  if (frame_length != NULL) fl = *frame_length;
  else if (window != NULL) fl = (int64_t)p->window_len;
  else return KILN_ERR_NULL_POINTER;
  if (window != NULL && fl != (int64_t)p->window_len) return KILN_ERR_BAD_ARGUMENT;
  if (step <= 0 || fl <= 0 || fl > (int64_t)p->length) return KILN_ERR_BAD_ARGUMENT;
  if ((p->onesided ? fl / 2 + 1 : fl) != (int64_t)p->bins) return KILN_ERR_BAD_ARGUMENT;
  if (((int64_t)p->length - fl) / step + 1 != (int64_t)p->frames) return KILN_ERR_BAD_ARGUMENT;
  if ((size_t)p->batch * p->frames * p->bins == 0u) return KILN_OK;
  if (signal == NULL || out == NULL) return KILN_ERR_NULL_POINTER;
  for (b = 0; b < p->batch; ++b) {
    for (f = 0; f < p->frames; ++f) {
      const float* frame = signal + ((size_t)b * p->length + (size_t)f * (size_t)step) * p->in_comps;
      for (k = 0; k < p->bins; ++k) {
        double re = 0.0, im = 0.0;
        float* y = out + (((size_t)b * p->frames + f) * p->bins + k) * 2u;
        for (t = 0; t < (uint32_t)fl; ++t) {
          const double w = window != NULL ? (double)window[t] : 1.0;
          const uint64_t m = ((uint64_t)k * t) % (uint64_t)fl;
          const double a = -two_pi * (double)m / (double)fl;
          const double c = cos(a), s = sin(a);
          const double xr = frame[(size_t)t * p->in_comps] * w;
          const double xi = p->in_comps == 2u ? frame[(size_t)t * 2u + 1u] * w : 0.0;
          re += xr * c - xi * s;
          im += xr * s + xi * c;
        }
        y[0] = (float)re;
        y[1] = (float)im;
      }
    }
  }
  return KILN_OK;
}
