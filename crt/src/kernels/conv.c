/*
 * ONNX Conv, float32, up to three spatial axes (1-D/2-D have leading axes of size
 * 1), NC[D]HW / OI[D]HW, groups.
 *
 * Three paths, chosen by the parameters the compiler bakes in:
 *  - tile_rows > 0: im2col + GEMM. The patches of `tile_rows` output rows (a row is
 *    one (depth, height) output position) are laid out in `scratch` as a
 *    [K, tile_rows * w_out] matrix (K = c_in/groups * k_d * k_h * k_w), then each
 *    output channel is a row of weights times that matrix. Tiling keeps the scratch
 *    buffer small enough to plan into SRAM.
 *  - a 1x1, stride-1, unpadded convolution is the same GEMM on the input itself.
 *  - otherwise (depthwise, or when the compiler gave no scratch) a direct loop.
 */
#include "kiln/conv.h"

/* out_rows[oc][j] = bias[oc] + sum_r w[oc][r] * col[r][j], for `cols` columns. */
static void conv_gemm(const float* w, const float* col, uint32_t c_out, uint32_t k, uint32_t cols,
                      float* out, uint32_t out_stride, const float* bias) {
  uint32_t oc, r, j;
  for (oc = 0; oc < c_out; ++oc) {
    float* o = out + oc * out_stride;
    const float* wr = w + oc * k;
    const float b0 = bias != NULL ? bias[oc] : 0.0f;
    for (j = 0; j < cols; ++j) o[j] = b0;
    for (r = 0; r < k; ++r) {
      const float wv = wr[r];
      const float* c = col + r * cols;
      for (j = 0; j < cols; ++j) o[j] += wv * c[j];
    }
  }
}

/* Input coordinate of output position `o`, kernel tap `k` on one axis (may be out of range). */
static int32_t in_coord(uint32_t o, uint32_t k, uint32_t stride, uint32_t dilation, int32_t pad) {
  return (int32_t)(o * stride + k * dilation) - pad;
}

static void conv_direct(const kiln_conv2d_params_t* p, const float* in, const float* w, const float* bias,
                        float* out, uint32_t cin_g, uint32_t cout_g) {
  const uint32_t ksize = p->k_d * p->k_h * p->k_w;
  const uint32_t plane_in = p->d_in * p->h_in * p->w_in;
  uint32_t oc, oz, oy, ox, ic, kz, ky, kx;
  for (oc = 0; oc < cout_g; ++oc) {
    const float* wo = w + oc * cin_g * ksize;
    for (oz = 0; oz < p->d_out; ++oz) {
      for (oy = 0; oy < p->h_out; ++oy) {
        for (ox = 0; ox < p->w_out; ++ox) {
          float sum = bias != NULL ? bias[oc] : 0.0f;
          for (ic = 0; ic < cin_g; ++ic) {
            const float* plane = in + ic * plane_in;
            const float* wk = wo + ic * ksize;
            for (kz = 0; kz < p->k_d; ++kz) {
              const int32_t iz = in_coord(oz, kz, p->stride_d, p->dilation_d, p->pad_front);
              if (iz < 0 || iz >= (int32_t)p->d_in) continue;
              for (ky = 0; ky < p->k_h; ++ky) {
                const int32_t iy = in_coord(oy, ky, p->stride_h, p->dilation_h, p->pad_top);
                if (iy < 0 || iy >= (int32_t)p->h_in) continue;
                for (kx = 0; kx < p->k_w; ++kx) {
                  const int32_t ix = in_coord(ox, kx, p->stride_w, p->dilation_w, p->pad_left);
                  if (ix < 0 || ix >= (int32_t)p->w_in) continue;
                  sum += plane[((uint32_t)iz * p->h_in + (uint32_t)iy) * p->w_in + (uint32_t)ix] *
                         wk[(kz * p->k_h + ky) * p->k_w + kx];
                }
              }
            }
          }
          out[((oc * p->d_out + oz) * p->h_out + oy) * p->w_out + ox] = sum;
        }
      }
    }
  }
}

/* Fills col[K][rows * w_out] with the input patches of output rows [r0, r0 + rows). */
static void im2col(const kiln_conv2d_params_t* p, const float* in, uint32_t cin_g, uint32_t r0, uint32_t rows,
                   float* col) {
  const uint32_t cols = rows * p->w_out;
  const uint32_t plane_in = p->d_in * p->h_in * p->w_in;
  uint32_t ic, kz, ky, kx, r, ox;
  for (ic = 0; ic < cin_g; ++ic) {
    const float* plane = in + ic * plane_in;
    for (kz = 0; kz < p->k_d; ++kz) {
      for (ky = 0; ky < p->k_h; ++ky) {
        for (kx = 0; kx < p->k_w; ++kx) {
          float* c = col + (((ic * p->k_d + kz) * p->k_h + ky) * p->k_w + kx) * cols;
          for (r = 0; r < rows; ++r) {
            const uint32_t oz = (r0 + r) / p->h_out, oy = (r0 + r) % p->h_out;
            const int32_t iz = in_coord(oz, kz, p->stride_d, p->dilation_d, p->pad_front);
            const int32_t iy = in_coord(oy, ky, p->stride_h, p->dilation_h, p->pad_top);
            float* crow = c + r * p->w_out;
            if (iz < 0 || iz >= (int32_t)p->d_in || iy < 0 || iy >= (int32_t)p->h_in) {
              for (ox = 0; ox < p->w_out; ++ox) crow[ox] = 0.0f;
              continue;
            }
            {
              const float* irow = plane + ((uint32_t)iz * p->h_in + (uint32_t)iy) * p->w_in;
              int32_t ix = in_coord(0, kx, p->stride_w, p->dilation_w, p->pad_left);
              for (ox = 0; ox < p->w_out; ++ox, ix += (int32_t)p->stride_w)
                crow[ox] = (ix >= 0 && ix < (int32_t)p->w_in) ? irow[ix] : 0.0f;
            }
          }
        }
      }
    }
  }
}

kiln_status_t kiln_conv2d_f32(const kiln_conv2d_params_t* p, const float* in, const float* weights,
                              const float* bias, float* out, void* scratch) {
  uint32_t b, g, cin_g, cout_g, k, sp_in, sp_out, out_rows;
  int pointwise;
  if (p == NULL || in == NULL || weights == NULL || out == NULL) return KILN_ERR_NULL_POINTER;
  if (p->groups == 0u || p->c_in % p->groups != 0u || p->c_out % p->groups != 0u || p->stride_d == 0u ||
      p->stride_h == 0u || p->stride_w == 0u || p->dilation_d == 0u || p->dilation_h == 0u || p->dilation_w == 0u)
    return KILN_ERR_BAD_ARGUMENT;
  if (p->tile_rows > 0u && scratch == NULL) return KILN_ERR_NULL_POINTER;
  cin_g = p->c_in / p->groups;
  cout_g = p->c_out / p->groups;
  k = cin_g * p->k_d * p->k_h * p->k_w;
  sp_in = p->d_in * p->h_in * p->w_in;
  sp_out = p->d_out * p->h_out * p->w_out;
  out_rows = p->d_out * p->h_out;
  pointwise = p->k_d == 1u && p->k_h == 1u && p->k_w == 1u && p->stride_d == 1u && p->stride_h == 1u &&
              p->stride_w == 1u && p->pad_front == 0 && p->pad_top == 0 && p->pad_left == 0 &&
              p->d_in == p->d_out && p->h_in == p->h_out && p->w_in == p->w_out;
  for (b = 0; b < p->n; ++b) {
    for (g = 0; g < p->groups; ++g) {
      const float* in_g = in + (b * p->c_in + g * cin_g) * sp_in;
      const float* w_g = weights + g * cout_g * k;
      const float* bias_g = bias != NULL ? bias + g * cout_g : NULL;
      float* out_g = out + (b * p->c_out + g * cout_g) * sp_out;
      if (pointwise) {
        conv_gemm(w_g, in_g, cout_g, k, sp_out, out_g, sp_out, bias_g);
      } else if (p->tile_rows > 0u) {
        uint32_t r0;
        for (r0 = 0; r0 < out_rows; r0 += p->tile_rows) {
          const uint32_t rows = out_rows - r0 < p->tile_rows ? out_rows - r0 : p->tile_rows;
          im2col(p, in_g, cin_g, r0, rows, (float*)scratch);
          conv_gemm(w_g, (const float*)scratch, cout_g, k, rows * p->w_out, out_g + r0 * p->w_out, sp_out, bias_g);
        }
      } else {
        conv_direct(p, in_g, w_g, bias_g, out_g, cin_g, cout_g);
      }
    }
  }
  return KILN_OK;
}
