/*
 * ONNX Conv, float32, 2-D (1-D as h = 1), NCHW / OIHW, groups.
 *
 * Three paths, chosen by the parameters the compiler bakes in:
 *  - tile_rows > 0: im2col + GEMM. The patches of `tile_rows` output rows are laid
 *    out in `scratch` as a [K, tile_rows * w_out] matrix (K = c_in/groups * k_h * k_w),
 *    then each output channel is a row of weights times that matrix. Tiling keeps
 *    the scratch buffer small enough to plan into SRAM.
 *  - a 1x1, stride-1, unpadded convolution is the same GEMM on the input itself.
 *  - otherwise (depthwise, or when the compiler gave no scratch) a direct loop.
 */
#include "kiln/conv.h"

/* out_rows[oc][j] (+)= sum_r w[oc][r] * col[r][j], for `cols` columns. */
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

static void conv_direct(const kiln_conv2d_params_t* p, const float* in, const float* w, const float* bias,
                        float* out, uint32_t cin_g, uint32_t cout_g) {
  uint32_t oc, oy, ox, ic, ky, kx;
  for (oc = 0; oc < cout_g; ++oc) {
    const float* wo = w + oc * cin_g * p->k_h * p->k_w;
    for (oy = 0; oy < p->h_out; ++oy) {
      for (ox = 0; ox < p->w_out; ++ox) {
        float sum = bias != NULL ? bias[oc] : 0.0f;
        const int32_t y0 = (int32_t)(oy * p->stride_h) - p->pad_top;
        const int32_t x0 = (int32_t)(ox * p->stride_w) - p->pad_left;
        for (ic = 0; ic < cin_g; ++ic) {
          const float* plane = in + ic * p->h_in * p->w_in;
          const float* wk = wo + ic * p->k_h * p->k_w;
          for (ky = 0; ky < p->k_h; ++ky) {
            const int32_t iy = y0 + (int32_t)(ky * p->dilation_h);
            if (iy < 0 || iy >= (int32_t)p->h_in) continue;
            for (kx = 0; kx < p->k_w; ++kx) {
              const int32_t ix = x0 + (int32_t)(kx * p->dilation_w);
              if (ix < 0 || ix >= (int32_t)p->w_in) continue;
              sum += plane[(uint32_t)iy * p->w_in + (uint32_t)ix] * wk[ky * p->k_w + kx];
            }
          }
        }
        out[(oc * p->h_out + oy) * p->w_out + ox] = sum;
      }
    }
  }
}

/* Fills col[K][rows * w_out] with the input patches of output rows [oy0, oy0 + rows). */
static void im2col(const kiln_conv2d_params_t* p, const float* in, uint32_t cin_g, uint32_t oy0, uint32_t rows,
                   float* col) {
  const uint32_t cols = rows * p->w_out;
  uint32_t ic, ky, kx, oy, ox;
  for (ic = 0; ic < cin_g; ++ic) {
    const float* plane = in + ic * p->h_in * p->w_in;
    for (ky = 0; ky < p->k_h; ++ky) {
      for (kx = 0; kx < p->k_w; ++kx) {
        float* c = col + ((ic * p->k_h + ky) * p->k_w + kx) * cols;
        for (oy = 0; oy < rows; ++oy) {
          const int32_t iy = (int32_t)((oy0 + oy) * p->stride_h + ky * p->dilation_h) - p->pad_top;
          float* crow = c + oy * p->w_out;
          if (iy < 0 || iy >= (int32_t)p->h_in) {
            for (ox = 0; ox < p->w_out; ++ox) crow[ox] = 0.0f;
            continue;
          }
          {
            const float* irow = plane + (uint32_t)iy * p->w_in;
            int32_t ix = (int32_t)(kx * p->dilation_w) - p->pad_left;
            for (ox = 0; ox < p->w_out; ++ox, ix += (int32_t)p->stride_w)
              crow[ox] = (ix >= 0 && ix < (int32_t)p->w_in) ? irow[ix] : 0.0f;
          }
        }
      }
    }
  }
}

kiln_status_t kiln_conv2d_f32(const kiln_conv2d_params_t* p, const float* in, const float* weights,
                              const float* bias, float* out, void* scratch) {
  uint32_t b, g, cin_g, cout_g, k, hw_in, hw_out;
  int pointwise;
  if (p == NULL || in == NULL || weights == NULL || out == NULL) return KILN_ERR_NULL_POINTER;
  if (p->groups == 0u || p->c_in % p->groups != 0u || p->c_out % p->groups != 0u || p->stride_h == 0u ||
      p->stride_w == 0u || p->dilation_h == 0u || p->dilation_w == 0u)
    return KILN_ERR_BAD_ARGUMENT;
  if (p->tile_rows > 0u && scratch == NULL) return KILN_ERR_NULL_POINTER;
  cin_g = p->c_in / p->groups;
  cout_g = p->c_out / p->groups;
  k = cin_g * p->k_h * p->k_w;
  hw_in = p->h_in * p->w_in;
  hw_out = p->h_out * p->w_out;
  pointwise = p->k_h == 1u && p->k_w == 1u && p->stride_h == 1u && p->stride_w == 1u && p->pad_top == 0 &&
              p->pad_left == 0 && p->h_in == p->h_out && p->w_in == p->w_out;
  for (b = 0; b < p->n; ++b) {
    for (g = 0; g < p->groups; ++g) {
      const float* in_g = in + (b * p->c_in + g * cin_g) * hw_in;
      const float* w_g = weights + g * cout_g * k;
      const float* bias_g = bias != NULL ? bias + g * cout_g : NULL;
      float* out_g = out + (b * p->c_out + g * cout_g) * hw_out;
      if (pointwise) {
        conv_gemm(w_g, in_g, cout_g, k, hw_out, out_g, hw_out, bias_g);
      } else if (p->tile_rows > 0u) {
        uint32_t oy0;
        for (oy0 = 0; oy0 < p->h_out; oy0 += p->tile_rows) {
          const uint32_t rows = p->h_out - oy0 < p->tile_rows ? p->h_out - oy0 : p->tile_rows;
          im2col(p, in_g, cin_g, oy0, rows, (float*)scratch);
          conv_gemm(w_g, (const float*)scratch, cout_g, k, rows * p->w_out, out_g + oy0 * p->w_out, hw_out, bias_g);
        }
      } else {
        conv_direct(p, in_g, w_g, bias_g, out_g, cin_g, cout_g);
      }
    }
  }
  return KILN_OK;
}
