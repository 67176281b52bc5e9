/*
 * ONNX ConvTranspose, float32, up to three spatial axes, NC[D]HW input and
 * I (O/groups) [D]HW weights. Computed as the adjoint of Conv: the output starts at
 * the bias, then every input element adds x * w to the output positions its kernel
 * taps reach (in * stride + k * dilation - pad). Taps that land in the cropped pads
 * (or past an explicit output_shape) are dropped.
 */
#include "kiln/conv.h"

kiln_status_t kiln_conv_transpose_f32(const kiln_conv2d_params_t* p, const float* in, const float* weights,
                                      const float* bias, float* out) {
  uint32_t b, g, ic, oc, iz, iy, ix, kz, ky, kx, i, cin_g, cout_g, sp_in, sp_out, ksize;
  if (p == NULL || in == NULL || weights == NULL || out == NULL) return KILN_ERR_NULL_POINTER;
  if (p->groups == 0u || p->c_in % p->groups != 0u || p->c_out % p->groups != 0u) return KILN_ERR_BAD_ARGUMENT;
  cin_g = p->c_in / p->groups;
  cout_g = p->c_out / p->groups;
  sp_in = p->d_in * p->h_in * p->w_in;
  sp_out = p->d_out * p->h_out * p->w_out;
  ksize = p->k_d * p->k_h * p->k_w;
  for (b = 0; b < p->n; ++b) {
    float* ob = out + b * p->c_out * sp_out;
    for (oc = 0; oc < p->c_out; ++oc) {
      const float b0 = bias != NULL ? bias[oc] : 0.0f;
      for (i = 0; i < sp_out; ++i) ob[oc * sp_out + i] = b0;
    }
    for (g = 0; g < p->groups; ++g) {
      for (ic = 0; ic < cin_g; ++ic) {
        const uint32_t c = g * cin_g + ic;
        const float* plane = in + (b * p->c_in + c) * sp_in;
        for (oc = 0; oc < cout_g; ++oc) {
          const float* wk = weights + (c * cout_g + oc) * ksize;
          float* oplane = ob + (g * cout_g + oc) * sp_out;
          for (iz = 0; iz < p->d_in; ++iz)
            for (iy = 0; iy < p->h_in; ++iy)
              for (ix = 0; ix < p->w_in; ++ix) {
                const float x = plane[(iz * p->h_in + iy) * p->w_in + ix];
                for (kz = 0; kz < p->k_d; ++kz) {
                  const int32_t z = (int32_t)(iz * p->stride_d + kz * p->dilation_d) - p->pad_front;
                  if (z < 0 || z >= (int32_t)p->d_out) continue;
                  for (ky = 0; ky < p->k_h; ++ky) {
                    const int32_t y = (int32_t)(iy * p->stride_h + ky * p->dilation_h) - p->pad_top;
                    if (y < 0 || y >= (int32_t)p->h_out) continue;
                    for (kx = 0; kx < p->k_w; ++kx) {
                      const int32_t xo = (int32_t)(ix * p->stride_w + kx * p->dilation_w) - p->pad_left;
                      if (xo < 0 || xo >= (int32_t)p->w_out) continue;
                      oplane[((uint32_t)z * p->h_out + (uint32_t)y) * p->w_out + (uint32_t)xo] +=
                          x * wk[(kz * p->k_h + ky) * p->k_w + kx];
                    }
                  }
                }
              }
        }
      }
    }
  }
  return KILN_OK;
}
