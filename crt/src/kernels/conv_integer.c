/*
 * ONNX ConvInteger: exact int32 convolution of 8-bit data with zero points,
 * out = sum (x - x_zp) * (w - w_zp). Direct loop over the kiln_conv2d_params_t
 * geometry (up to three spatial axes, groups, dilations, leading pads). An 8-bit
 * product is below 2^16, so the int32 accumulator is exact for any kernel below
 * 2^15 taps (the compiler checks this).
 */
#include "kiln/conv.h"

static int32_t load8(const void* base, uint32_t i, uint8_t is_signed) {
  return is_signed ? (int32_t)((const int8_t*)base)[i] : (int32_t)((const uint8_t*)base)[i];
}

kiln_status_t kiln_conv_integer_s32(const kiln_conv_integer_params_t* p, const void* x, const void* x_zero_point,
                                    const void* w, const void* w_zero_point, int32_t* out) {
  const kiln_conv2d_params_t* q;
  uint32_t b, oc, oz, oy, ox, ic, kz, ky, kx, cin_g, cout_g, sp_in, ksize;
  int32_t xzp;
  if (p == NULL || x == NULL || w == NULL || out == NULL) return KILN_ERR_NULL_POINTER;
  q = &p->geom;
  if (q->groups == 0u || q->c_in % q->groups != 0u || q->c_out % q->groups != 0u) return KILN_ERR_BAD_ARGUMENT;
  cin_g = q->c_in / q->groups;
  cout_g = q->c_out / q->groups;
  sp_in = q->d_in * q->h_in * q->w_in;
  ksize = q->k_d * q->k_h * q->k_w;
  xzp = x_zero_point != NULL ? load8(x_zero_point, 0, p->x_signed) : 0;
  for (b = 0; b < q->n; ++b) {
    for (oc = 0; oc < q->c_out; ++oc) {
      const uint32_t g = oc / cout_g;
      const int32_t wzp = w_zero_point != NULL ? load8(w_zero_point, p->w_zp_per_channel ? oc : 0u, p->w_signed) : 0;
      for (oz = 0; oz < q->d_out; ++oz)
        for (oy = 0; oy < q->h_out; ++oy)
          for (ox = 0; ox < q->w_out; ++ox) {
            int32_t acc = 0;
            for (ic = 0; ic < cin_g; ++ic) {
              const uint32_t xbase = (b * q->c_in + g * cin_g + ic) * sp_in;
              const uint32_t wbase = (oc * cin_g + ic) * ksize;
              for (kz = 0; kz < q->k_d; ++kz) {
                const int32_t iz = (int32_t)(oz * q->stride_d + kz * q->dilation_d) - q->pad_front;
                if (iz < 0 || iz >= (int32_t)q->d_in) continue;
                for (ky = 0; ky < q->k_h; ++ky) {
                  const int32_t iy = (int32_t)(oy * q->stride_h + ky * q->dilation_h) - q->pad_top;
                  if (iy < 0 || iy >= (int32_t)q->h_in) continue;
                  for (kx = 0; kx < q->k_w; ++kx) {
                    const int32_t ix = (int32_t)(ox * q->stride_w + kx * q->dilation_w) - q->pad_left;
                    if (ix < 0 || ix >= (int32_t)q->w_in) continue;
                    acc += (load8(x, xbase + ((uint32_t)iz * q->h_in + (uint32_t)iy) * q->w_in + (uint32_t)ix,
                                  p->x_signed) - xzp) *
                           (load8(w, wbase + (kz * q->k_h + ky) * q->k_w + kx, p->w_signed) - wzp);
                  }
                }
              }
            }
            *out++ = acc;
          }
    }
  }
  return KILN_OK;
}
