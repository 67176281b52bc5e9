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

#include "depthwise3x3_f32.h"
#include "gemm_tiles_f32.h"
#include "rows_f32.h"

/* out_rows[oc][j] = bias[oc] + sum_r w[oc][r] * col[r][j], for `cols` columns.
 * Four output channels and four columns at a time: each loaded column value feeds
 * four accumulators and each weight four, so the inner loop does 16 multiply-adds
 * for 8 loads with the accumulators in FPU registers (the plain loop loads and
 * stores the output on every multiply-add). Every sum still runs bias first, then
 * r = 0, 1, ..., so the result is the same as the plain loop's. */
static void conv_gemm(const float* w, const float* col, uint32_t c_out, uint32_t k, uint32_t cols,
                      float* out, uint32_t out_stride, const float* bias) {
  uint32_t oc = 0, r, j;
  for (; oc + 4u <= c_out; oc += 4u) {
    const float* w0 = w + oc * k;
    const float* w1 = w0 + k;
    const float* w2 = w1 + k;
    const float* w3 = w2 + k;
    float* o0 = out + oc * out_stride;
    float* o1 = o0 + out_stride;
    float* o2 = o1 + out_stride;
    float* o3 = o2 + out_stride;
    const float b0 = bias != NULL ? bias[oc] : 0.0f, b1 = bias != NULL ? bias[oc + 1u] : 0.0f;
    const float b2 = bias != NULL ? bias[oc + 2u] : 0.0f, b3 = bias != NULL ? bias[oc + 3u] : 0.0f;
    for (j = 0; j + 4u <= cols; j += 4u) {
      float a00 = b0, a01 = b0, a02 = b0, a03 = b0, a10 = b1, a11 = b1, a12 = b1, a13 = b1;
      float a20 = b2, a21 = b2, a22 = b2, a23 = b2, a30 = b3, a31 = b3, a32 = b3, a33 = b3;
      const float* c = col + j;
      for (r = 0; r < k; ++r, c += cols) {
        const float c0 = c[0], c1 = c[1], c2 = c[2], c3 = c[3];
        const float v0 = w0[r], v1 = w1[r], v2 = w2[r], v3 = w3[r];
        a00 += v0 * c0, a01 += v0 * c1, a02 += v0 * c2, a03 += v0 * c3;
        a10 += v1 * c0, a11 += v1 * c1, a12 += v1 * c2, a13 += v1 * c3;
        a20 += v2 * c0, a21 += v2 * c1, a22 += v2 * c2, a23 += v2 * c3;
        a30 += v3 * c0, a31 += v3 * c1, a32 += v3 * c2, a33 += v3 * c3;
      }
      o0[j] = a00, o0[j + 1u] = a01, o0[j + 2u] = a02, o0[j + 3u] = a03;
      o1[j] = a10, o1[j + 1u] = a11, o1[j + 2u] = a12, o1[j + 3u] = a13;
      o2[j] = a20, o2[j + 1u] = a21, o2[j + 2u] = a22, o2[j + 3u] = a23;
      o3[j] = a30, o3[j + 1u] = a31, o3[j + 2u] = a32, o3[j + 3u] = a33;
    }
    for (; j < cols; ++j) { /* the last cols % 4 columns */
      float a0 = b0, a1 = b1, a2 = b2, a3 = b3;
      const float* c = col + j;
      for (r = 0; r < k; ++r, c += cols) {
        const float cv = c[0];
        a0 += w0[r] * cv, a1 += w1[r] * cv, a2 += w2[r] * cv, a3 += w3[r] * cv;
      }
      o0[j] = a0, o1[j] = a1, o2[j] = a2, o3[j] = a3;
    }
  }
  for (; oc < c_out; ++oc) { /* the last c_out % 4 channels */
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

/* The output positions [*lo, *hi) of one axis whose input coordinate for kernel tap
 * `k` (o * stride + k * dilation - pad) lands inside the input, 0..n-1. */
static void valid_outputs(uint32_t k, uint32_t stride, uint32_t dilation, int32_t pad, uint32_t n, uint32_t n_out,
                          uint32_t* lo, uint32_t* hi) {
  const int64_t off = (int64_t)k * dilation - pad, s = stride;
  int64_t a = off >= 0 ? 0 : (-off + s - 1) / s;                    /* first o with o*s + off >= 0 */
  int64_t b = (int64_t)n - off <= 0 ? 0 : ((int64_t)n - off + s - 1) / s; /* first o with o*s + off >= n */
  if (a > (int64_t)n_out) a = n_out;
  if (b > (int64_t)n_out) b = n_out;
  if (b < a) b = a;
  *lo = (uint32_t)a;
  *hi = (uint32_t)b;
}

/* Direct convolution, weight-stationary: the output plane starts at the bias, then
 * each kernel tap adds weight * input to every output it reaches, a row at a time
 * (the edges handled by each tap's range of outputs, not by a test per multiply-add).
 * Every output still sums bias first, then its taps in (ic, kz, ky, kx) order. */
static void conv_direct(const kiln_conv2d_params_t* p, const float* in, const float* w, const float* bias,
                        float* out, uint32_t cin_g, uint32_t cout_g) {
  const uint32_t ksize = p->k_d * p->k_h * p->k_w;
  const uint32_t plane_in = p->d_in * p->h_in * p->w_in;
  const uint32_t plane_out = p->d_out * p->h_out * p->w_out;
  uint32_t oc, ic, kz, ky, kx, oz, oy, ox, i;
  for (oc = 0; oc < cout_g; ++oc) {
    float* o = out + oc * plane_out;
    const float b = bias != NULL ? bias[oc] : 0.0f;
    for (i = 0; i < plane_out; ++i) o[i] = b;
    for (ic = 0; ic < cin_g; ++ic) {
      const float* plane = in + ic * plane_in;
      const float* wk = w + (oc * cin_g + ic) * ksize;
      for (kz = 0; kz < p->k_d; ++kz) {
        uint32_t oz0, oz1;
        valid_outputs(kz, p->stride_d, p->dilation_d, p->pad_front, p->d_in, p->d_out, &oz0, &oz1);
        for (ky = 0; ky < p->k_h; ++ky) {
          uint32_t oy0, oy1;
          valid_outputs(ky, p->stride_h, p->dilation_h, p->pad_top, p->h_in, p->h_out, &oy0, &oy1);
          for (kx = 0; kx < p->k_w; ++kx) {
            const float wv = wk[(kz * p->k_h + ky) * p->k_w + kx];
            uint32_t ox0, ox1;
            valid_outputs(kx, p->stride_w, p->dilation_w, p->pad_left, p->w_in, p->w_out, &ox0, &ox1);
            if (ox0 == ox1) continue;
            for (oz = oz0; oz < oz1; ++oz) {
              const uint32_t iz = (uint32_t)in_coord(oz, kz, p->stride_d, p->dilation_d, p->pad_front);
              for (oy = oy0; oy < oy1; ++oy) {
                const uint32_t iy = (uint32_t)in_coord(oy, ky, p->stride_h, p->dilation_h, p->pad_top);
                const float* irow = plane + (iz * p->h_in + iy) * p->w_in;
                float* orow = o + (oz * p->h_out + oy) * p->w_out;
                uint32_t ix = (uint32_t)in_coord(ox0, kx, p->stride_w, p->dilation_w, p->pad_left);
                if (p->stride_w == 1u) {
                  const float* x = irow + ix;
                  float* y = orow + ox0;
                  const uint32_t count = ox1 - ox0;
                  for (i = 0; i < count; ++i) y[i] += wv * x[i];
                } else {
                  for (ox = ox0; ox < ox1; ++ox, ix += p->stride_w) orow[ox] += wv * irow[ix];
                }
              }
            }
          }
        }
      }
    }
  }
}

/* Fills col[K][rows * w_out] with the input patches of output rows [r0, r0 + rows).
 * Each patch row is zeros where the tap falls in the padding and a run of the input
 * row in between (a block copy when the stride is 1). */
static void im2col(const kiln_conv2d_params_t* p, const float* in, uint32_t cin_g, uint32_t r0, uint32_t rows,
                   float* col) {
  const uint32_t cols = rows * p->w_out;
  const uint32_t plane_in = p->d_in * p->h_in * p->w_in;
  uint32_t ic, kz, ky, kx, r, ox;
  /* The valid output columns of each kernel column, worked out once per call (the
   * 64-bit division in valid_outputs is a library call on 32-bit cores). */
  uint32_t x_lo[16], x_hi[16];
  const int few_columns = p->k_w <= 16u;
  if (few_columns)
    for (kx = 0; kx < p->k_w; ++kx)
      valid_outputs(kx, p->stride_w, p->dilation_w, p->pad_left, p->w_in, p->w_out, &x_lo[kx], &x_hi[kx]);
  for (ic = 0; ic < cin_g; ++ic) {
    const float* plane = in + ic * plane_in;
    for (kz = 0; kz < p->k_d; ++kz) {
      for (ky = 0; ky < p->k_h; ++ky) {
        for (kx = 0; kx < p->k_w; ++kx) {
          float* c = col + (((ic * p->k_d + kz) * p->k_h + ky) * p->k_w + kx) * cols;
          uint32_t ox0, ox1;
          if (few_columns) ox0 = x_lo[kx], ox1 = x_hi[kx];
          else valid_outputs(kx, p->stride_w, p->dilation_w, p->pad_left, p->w_in, p->w_out, &ox0, &ox1);
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
              for (ox = 0; ox < ox0; ++ox) crow[ox] = 0.0f;
              if (ox1 > ox0) {
                const float* x = irow + ((int32_t)(ox0 * p->stride_w + kx * p->dilation_w) - p->pad_left);
                if (p->stride_w == 1u) {
                  kiln_f32_copy(crow + ox0, x, ox1 - ox0);
                } else {
                  for (ox = ox0; ox < ox1; ++ox, x += p->stride_w) crow[ox] = *x;
                }
              }
              for (ox = ox1; ox < p->w_out; ++ox) crow[ox] = 0.0f;
            }
          }
        }
      }
    }
  }
}

/* Fills col[K][n] with the input patches of output columns [x0, x0 + n) of output
 * row `row` (a part of what im2col lays out for that row). */
static void im2col_segment(const kiln_conv2d_params_t* p, const float* in, uint32_t cin_g, uint32_t row, uint32_t x0,
                           uint32_t n, float* col) {
  const uint32_t plane_in = p->d_in * p->h_in * p->w_in, k_w = p->k_w, stride_w = p->stride_w;
  const uint32_t oz = row / p->h_out, oy = row % p->h_out;
  uint32_t ic, kz, ky, kx, i;
  /* Per kernel column, once per call (valid_outputs divides in 64 bits, a library
   * call on 32-bit cores): the segment's leading zeros, its run of input columns
   * (from input column src) and its trailing zeros. A short segment's copies are
   * cheaper than recomputing this per tap and channel. */
  uint32_t lead[16], run[16];
  int32_t src[16];
  const int few_columns = k_w <= 16u;
  if (few_columns)
    for (kx = 0; kx < k_w; ++kx) {
      uint32_t lo, hi, a, b;
      valid_outputs(kx, stride_w, p->dilation_w, p->pad_left, p->w_in, p->w_out, &lo, &hi);
      a = lo > x0 ? lo : x0;
      b = hi < x0 + n ? hi : x0 + n;
      if (b < a) b = a;
      lead[kx] = a - x0, run[kx] = b - a;
      src[kx] = (int32_t)(a * stride_w + kx * p->dilation_w) - p->pad_left;
    }
  for (ic = 0; ic < cin_g; ++ic) {
    const float* plane = in + ic * plane_in;
    for (kz = 0; kz < p->k_d; ++kz) {
      const int32_t iz = in_coord(oz, kz, p->stride_d, p->dilation_d, p->pad_front);
      for (ky = 0; ky < p->k_h; ++ky) {
        const int32_t iy = in_coord(oy, ky, p->stride_h, p->dilation_h, p->pad_top);
        float* crow = col + ((ic * p->k_d + kz) * p->k_h + ky) * k_w * n;
        const float* irow;
        if (iz < 0 || iz >= (int32_t)p->d_in || iy < 0 || iy >= (int32_t)p->h_in) {
          for (i = 0; i < k_w * n; ++i) crow[i] = 0.0f;
          continue;
        }
        irow = plane + ((uint32_t)iz * p->h_in + (uint32_t)iy) * p->w_in;
        for (kx = 0; kx < k_w; ++kx, crow += n) {
          uint32_t a, r;
          int32_t s0;
          if (few_columns) {
            a = lead[kx], r = run[kx], s0 = src[kx];
          } else {
            uint32_t lo, hi, b;
            valid_outputs(kx, stride_w, p->dilation_w, p->pad_left, p->w_in, p->w_out, &lo, &hi);
            a = lo > x0 ? lo : x0;
            b = hi < x0 + n ? hi : x0 + n;
            if (b < a) b = a;
            s0 = (int32_t)(a * stride_w + kx * p->dilation_w) - p->pad_left;
            a -= x0, r = b - (a + x0);
          }
          for (i = 0; i < a; ++i) crow[i] = 0.0f;
          if (r > 0u) {
            const float* x = irow + s0;
            if (stride_w == 1u) {
              kiln_f32_copy(crow + a, x, r);
            } else {
              for (i = 0; i < r; ++i, x += stride_w) crow[a + i] = *x;
            }
          }
          for (i = a + r; i < n; ++i) crow[i] = 0.0f;
        }
      }
    }
  }
}

/* One group's output channels from packed weight blocks (KILN_CONV_WEIGHTS_GEMM_BLOCKS):
 * out[oc][j] = bias[oc] + sum_r w[oc][r] * x[r * x_stride + j], j < cols. */
static void conv_gemm_blocks(const float* wp, const float* x, uint32_t x_stride, uint32_t c_out, uint32_t k,
                             uint32_t cols, float* out, uint32_t out_stride, const float* bias) {
  uint32_t oc;
  for (oc = 0; oc < c_out; oc += 4u, wp += KILN_F32_PACKED_BLOCK(k)) {
    const uint32_t rows = c_out - oc < 4u ? c_out - oc : 4u;
    kiln_f32_gemm_block(wp, bias != NULL ? bias + oc : NULL, rows, x, x_stride, k, cols, out + oc * out_stride,
                        out_stride);
  }
}

kiln_status_t kiln_conv2d_f32(const kiln_conv2d_params_t* p, const float* in, const float* weights,
                              const float* bias, float* out, void* scratch) {
  uint32_t b, g, cin_g, cout_g, k, sp_in, sp_out, out_rows;
  int pointwise, packed;
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
  if (p->weights_layout > KILN_CONV_WEIGHTS_DEPTHWISE_3X3) return KILN_ERR_BAD_ARGUMENT;
  if (p->weights_layout == KILN_CONV_WEIGHTS_DEPTHWISE_3X3) {
    if (!kiln_f32_depthwise3x3_supported(p)) return KILN_ERR_BAD_ARGUMENT;
    if (scratch == NULL) return KILN_ERR_NULL_POINTER;
    for (b = 0; b < p->n; ++b)
      kiln_f32_depthwise3x3(p, in + b * p->c_in * sp_in, weights, out + b * p->c_out * sp_out, (float*)scratch);
    return KILN_OK;
  }
  pointwise = p->k_d == 1u && p->k_h == 1u && p->k_w == 1u && p->stride_d == 1u && p->stride_h == 1u &&
              p->stride_w == 1u && p->pad_front == 0 && p->pad_top == 0 && p->pad_left == 0 &&
              p->d_in == p->d_out && p->h_in == p->h_out && p->w_in == p->w_out;
  packed = p->weights_layout == KILN_CONV_WEIGHTS_GEMM_BLOCKS;
  if (packed && !pointwise && p->tile_rows == 0u) return KILN_ERR_BAD_ARGUMENT;
  for (b = 0; b < p->n; ++b) {
    for (g = 0; g < p->groups; ++g) {
      const float* in_g = in + (b * p->c_in + g * cin_g) * sp_in;
      const float* w_g = weights + g * (packed ? (cout_g + 3u) / 4u * KILN_F32_PACKED_BLOCK(k) : cout_g * k);
      const float* bias_g = bias != NULL ? bias + g * cout_g : NULL;
      float* out_g = out + (b * p->c_out + g * cout_g) * sp_out;
      if (packed && pointwise && p->tile_rows > 0u) {
        /* Gathered: tile_rows columns of every input channel are copied to scratch
         * before any output of those columns is written (out may overlap in). */
        uint32_t j0, c;
        for (j0 = 0; j0 < sp_out; j0 += p->tile_rows) {
          const uint32_t cols = sp_out - j0 < p->tile_rows ? sp_out - j0 : p->tile_rows;
          float* col = (float*)scratch;
          for (c = 0; c < cin_g; ++c) kiln_f32_copy(col + c * cols, in_g + c * sp_in + j0, cols);
          conv_gemm_blocks(w_g, col, cols, cout_g, k, cols, out_g + j0, sp_out, bias_g);
        }
      } else if (packed && pointwise) {
        conv_gemm_blocks(w_g, in_g, sp_in, cout_g, k, sp_out, out_g, sp_out, bias_g);
      } else if (packed && p->tile_cols > 0u) {
        uint32_t r0, x0;
        for (r0 = 0; r0 < out_rows; ++r0)
          for (x0 = 0; x0 < p->w_out; x0 += p->tile_cols) {
            const uint32_t n = p->w_out - x0 < p->tile_cols ? p->w_out - x0 : p->tile_cols;
            im2col_segment(p, in_g, cin_g, r0, x0, n, (float*)scratch);
            conv_gemm_blocks(w_g, (const float*)scratch, n, cout_g, k, n, out_g + r0 * p->w_out + x0, sp_out, bias_g);
          }
      } else if (packed) {
        uint32_t r0;
        for (r0 = 0; r0 < out_rows; r0 += p->tile_rows) {
          const uint32_t rows = out_rows - r0 < p->tile_rows ? out_rows - r0 : p->tile_rows;
          im2col(p, in_g, cin_g, r0, rows, (float*)scratch);
          conv_gemm_blocks(w_g, (const float*)scratch, rows * p->w_out, cout_g, k, rows * p->w_out,
                           out_g + r0 * p->w_out, sp_out, bias_g);
        }
      } else if (pointwise) {
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

/* out[oc][j] = tmp[oc][j] + res[oc][j], j < cols (out and res have row stride `stride`,
 * tmp is dense): res is read before out is written, so out may be res. */
static void add_tile(const float* tmp, uint32_t cols, const float* res, float* out, uint32_t stride, uint32_t c_out) {
  uint32_t oc, j;
  for (oc = 0; oc < c_out; ++oc) {
    const float* t = tmp + oc * cols;
    const float* r = res + oc * stride;
    float* o = out + oc * stride;
    for (j = 0; j < cols; ++j) o[j] = t[j] + r[j];
  }
}

kiln_status_t kiln_conv2d_add_f32(const kiln_conv2d_params_t* p, const float* in, const float* weights,
                                  const float* bias, const float* residual, float* out, void* scratch) {
  uint32_t b, k, sp_in, sp_out, out_rows, j0, r0;
  int pointwise;
  if (p == NULL || in == NULL || weights == NULL || residual == NULL || out == NULL || scratch == NULL)
    return KILN_ERR_NULL_POINTER;
  if (p->groups != 1u || p->weights_layout != KILN_CONV_WEIGHTS_GEMM_BLOCKS || p->tile_rows == 0u ||
      p->stride_d == 0u || p->stride_h == 0u || p->stride_w == 0u || p->dilation_d == 0u || p->dilation_h == 0u ||
      p->dilation_w == 0u)
    return KILN_ERR_BAD_ARGUMENT;
  k = p->c_in * p->k_d * p->k_h * p->k_w;
  sp_in = p->d_in * p->h_in * p->w_in;
  sp_out = p->d_out * p->h_out * p->w_out;
  out_rows = p->d_out * p->h_out;
  pointwise = p->k_d == 1u && p->k_h == 1u && p->k_w == 1u && p->stride_d == 1u && p->stride_h == 1u &&
              p->stride_w == 1u && p->pad_front == 0 && p->pad_top == 0 && p->pad_left == 0 &&
              p->d_in == p->d_out && p->h_in == p->h_out && p->w_in == p->w_out;
  for (b = 0; b < p->n; ++b) {
    const float* in_b = in + b * p->c_in * sp_in;
    const float* res_b = residual + b * p->c_out * sp_out;
    float* out_b = out + b * p->c_out * sp_out;
    if (pointwise) {
      float* tmp = (float*)scratch;
      for (j0 = 0; j0 < sp_out; j0 += p->tile_rows) {
        const uint32_t cols = sp_out - j0 < p->tile_rows ? sp_out - j0 : p->tile_rows;
        conv_gemm_blocks(weights, in_b + j0, sp_in, p->c_out, k, cols, tmp, cols, bias);
        add_tile(tmp, cols, res_b + j0, out_b + j0, sp_out, p->c_out);
      }
    } else if (p->tile_cols > 0u) {
      float* col = (float*)scratch;
      float* tmp = col + k * p->tile_cols;
      for (r0 = 0; r0 < out_rows; ++r0)
        for (j0 = 0; j0 < p->w_out; j0 += p->tile_cols) {
          const uint32_t cols = p->w_out - j0 < p->tile_cols ? p->w_out - j0 : p->tile_cols;
          float* o = out_b + r0 * p->w_out + j0;
          im2col_segment(p, in_b, p->c_in, r0, j0, cols, col);
          conv_gemm_blocks(weights, col, cols, p->c_out, k, cols, tmp, cols, bias);
          add_tile(tmp, cols, res_b + (o - out_b), o, sp_out, p->c_out);
        }
    } else {
      float* col = (float*)scratch;
      float* tmp = col + k * p->tile_rows * p->w_out;
      for (r0 = 0; r0 < out_rows; r0 += p->tile_rows) {
        const uint32_t rows = out_rows - r0 < p->tile_rows ? out_rows - r0 : p->tile_rows;
        const uint32_t cols = rows * p->w_out;
        im2col(p, in_b, p->c_in, r0, rows, col);
        conv_gemm_blocks(weights, col, cols, p->c_out, k, cols, tmp, cols, bias);
        add_tile(tmp, cols, res_b + r0 * p->w_out, out_b + r0 * p->w_out, sp_out, p->c_out);
      }
    }
  }
  return KILN_OK;
}

static void clip_rows(float* x, uint32_t n, float lo, float hi) {
  uint32_t i;
  for (i = 0; i < n; ++i) {
    float v = x[i];
    if (v < lo) v = lo;
    if (v > hi) v = hi;
    x[i] = v;
  }
}

kiln_status_t kiln_inverted_residual_f32(const kiln_inverted_residual_params_t* p, const float* in,
                                         const float* w_expand, const float* b_expand, const float* dw_packed,
                                         const float* w_project, const float* b_project, float* out, void* scratch) {
  const kiln_conv2d_params_t* d;
  uint32_t ce, s, w_in, w_out, h_in, h_out, sp_in, sp_out, max_rows, oy0;
  float *e, *ring, *dwb;
  if (p == NULL || in == NULL || w_expand == NULL || dw_packed == NULL || w_project == NULL || out == NULL ||
      scratch == NULL)
    return KILN_ERR_NULL_POINTER;
  d = &p->dw;
  if (!kiln_f32_depthwise3x3_supported(d) || d->n != 1u || d->c_in != d->c_out || p->band_rows == 0u ||
      p->c_in == 0u || p->c_out == 0u)
    return KILN_ERR_BAD_ARGUMENT;
  ce = d->c_in, s = d->stride_h, w_in = d->w_in, w_out = d->w_out, h_in = d->h_in, h_out = d->h_out;
  sp_in = h_in * w_in, sp_out = h_out * w_out;
  max_rows = (p->band_rows - 1u) * s + 3u;
  e = (float*)scratch;
  ring = e + ce * max_rows * w_in;
  dwb = ring + 3u * KILN_DW3X3_ROW_LEN(w_out, s);
  for (oy0 = 0; oy0 < h_out; oy0 += p->band_rows) {
    const uint32_t rows_out = h_out - oy0 < p->band_rows ? h_out - oy0 : p->band_rows;
    const int32_t top = (int32_t)(oy0 * s) - d->pad_top;
    const int32_t bottom = (int32_t)((oy0 + rows_out - 1u) * s) - d->pad_top + 3; /* exclusive */
    const uint32_t iy0 = top > 0 ? (uint32_t)top : 0u;
    const uint32_t iy1 = bottom < (int32_t)h_in ? (uint32_t)bottom : h_in;
    const uint32_t cols = (iy1 - iy0) * w_in;
    kiln_conv2d_params_t q = *d;
    conv_gemm_blocks(w_expand, in + iy0 * w_in, sp_in, ce, p->c_in, cols, e, cols, b_expand);
    clip_rows(e, ce * cols, p->lo1, p->hi1);
    q.h_in = iy1 - iy0;
    q.h_out = rows_out;
    q.pad_top = (int32_t)iy0 - top;
    kiln_f32_depthwise3x3(&q, e, dw_packed, dwb, ring);
    clip_rows(dwb, ce * rows_out * w_out, p->lo2, p->hi2);
    conv_gemm_blocks(w_project, dwb, rows_out * w_out, p->c_out, ce, rows_out * w_out, out + oy0 * w_out, sp_out,
                     b_project);
  }
  return KILN_OK;
}
