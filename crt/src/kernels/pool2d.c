/* ONNX MaxPool / AveragePool, float32, 2-D (1-D as h = 1), NCHW. */
#include <math.h>

#include "kiln/pool.h"

static kiln_status_t check(const kiln_pool2d_params_t* p, const float* in, float* out) {
  if (p == NULL || in == NULL || out == NULL) return KILN_ERR_NULL_POINTER;
  if (p->stride_h == 0u || p->stride_w == 0u || p->dilation_h == 0u || p->dilation_w == 0u) return KILN_ERR_BAD_ARGUMENT;
  return KILN_OK;
}

kiln_status_t kiln_maxpool2d_f32(const kiln_pool2d_params_t* p, const float* in, float* out) {
  uint32_t c, oy, ox, ky, kx;
  kiln_status_t s = check(p, in, out);
  if (s != KILN_OK) return s;
  for (c = 0; c < p->n * p->c; ++c) {
    const float* plane = in + c * p->h_in * p->w_in;
    for (oy = 0; oy < p->h_out; ++oy) {
      for (ox = 0; ox < p->w_out; ++ox) {
        float m = -INFINITY;
        const int32_t y0 = (int32_t)(oy * p->stride_h) - p->pad_top;
        const int32_t x0 = (int32_t)(ox * p->stride_w) - p->pad_left;
        for (ky = 0; ky < p->k_h; ++ky) {
          const int32_t iy = y0 + (int32_t)(ky * p->dilation_h);
          if (iy < 0 || iy >= (int32_t)p->h_in) continue;
          for (kx = 0; kx < p->k_w; ++kx) {
            const int32_t ix = x0 + (int32_t)(kx * p->dilation_w);
            float v;
            if (ix < 0 || ix >= (int32_t)p->w_in) continue;
            v = plane[(uint32_t)iy * p->w_in + (uint32_t)ix];
            if (v > m || v != v) m = v; /* NaN propagates */
          }
        }
        *out++ = m;
      }
    }
  }
  return KILN_OK;
}

kiln_status_t kiln_avgpool2d_f32(const kiln_pool2d_params_t* p, const float* in, float* out) {
  uint32_t c, oy, ox, ky, kx;
  kiln_status_t s = check(p, in, out);
  if (s != KILN_OK) return s;
  for (c = 0; c < p->n * p->c; ++c) {
    const float* plane = in + c * p->h_in * p->w_in;
    for (oy = 0; oy < p->h_out; ++oy) {
      for (ox = 0; ox < p->w_out; ++ox) {
        float sum = 0.0f;
        uint32_t count = 0;
        const int32_t y0 = (int32_t)(oy * p->stride_h) - p->pad_top;
        const int32_t x0 = (int32_t)(ox * p->stride_w) - p->pad_left;
        for (ky = 0; ky < p->k_h; ++ky) {
          const int32_t iy = y0 + (int32_t)(ky * p->dilation_h);
          const int in_y = iy >= 0 && iy < (int32_t)p->h_in;
          const int in_pad_y = iy >= -p->pad_top && iy < (int32_t)p->h_in + p->pad_bottom;
          for (kx = 0; kx < p->k_w; ++kx) {
            const int32_t ix = x0 + (int32_t)(kx * p->dilation_w);
            const int in_x = ix >= 0 && ix < (int32_t)p->w_in;
            const int in_pad_x = ix >= -p->pad_left && ix < (int32_t)p->w_in + p->pad_right;
            if (in_y && in_x) {
              sum += plane[(uint32_t)iy * p->w_in + (uint32_t)ix];
              ++count;
            } else if (p->count_include_pad && in_pad_y && in_pad_x) {
              ++count; /* a padding zero that counts in the divisor */
            }
          }
        }
        *out++ = count > 0u ? sum / (float)count : 0.0f;
      }
    }
  }
  return KILN_OK;
}
