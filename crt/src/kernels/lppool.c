/* ONNX LpPool, float32, up to three spatial axes: (sum over the window of |x|^p)^(1/p);
 * padding positions contribute 0. p = 1 and p = 2 avoid pow for exactness and speed. */
#include <math.h>

#include "kiln/pool.h"

static float lp_term(float v, float pw) {
  const float a = fabsf(v);
  return pw == 1.0f ? a : pw == 2.0f ? a * a : powf(a, pw);
}

static float lp_root(float s, float pw) { return pw == 1.0f ? s : pw == 2.0f ? sqrtf(s) : powf(s, 1.0f / pw); }

kiln_status_t kiln_lppool2d_f32(const kiln_pool2d_params_t* p, const float* in, float* out) {
  uint32_t c, oz, oy, ox, kz, ky, kx;
  if (p == NULL || in == NULL || out == NULL) return KILN_ERR_NULL_POINTER;
  if (p->stride_d == 0u || p->stride_h == 0u || p->stride_w == 0u || !(p->p > 0.0f)) return KILN_ERR_BAD_ARGUMENT;
  for (c = 0; c < p->n * p->c; ++c) {
    const float* plane = in + c * p->d_in * p->h_in * p->w_in;
    for (oz = 0; oz < p->d_out; ++oz)
      for (oy = 0; oy < p->h_out; ++oy)
        for (ox = 0; ox < p->w_out; ++ox) {
          float sum = 0.0f;
          for (kz = 0; kz < p->k_d; ++kz) {
            const int32_t iz = (int32_t)(oz * p->stride_d + kz * p->dilation_d) - p->pad_front;
            if (iz < 0 || iz >= (int32_t)p->d_in) continue;
            for (ky = 0; ky < p->k_h; ++ky) {
              const int32_t iy = (int32_t)(oy * p->stride_h + ky * p->dilation_h) - p->pad_top;
              if (iy < 0 || iy >= (int32_t)p->h_in) continue;
              for (kx = 0; kx < p->k_w; ++kx) {
                const int32_t ix = (int32_t)(ox * p->stride_w + kx * p->dilation_w) - p->pad_left;
                if (ix < 0 || ix >= (int32_t)p->w_in) continue;
                sum += lp_term(plane[((uint32_t)iz * p->h_in + (uint32_t)iy) * p->w_in + (uint32_t)ix], p->p);
              }
            }
          }
          *out++ = lp_root(sum, p->p);
        }
  }
  return KILN_OK;
}
