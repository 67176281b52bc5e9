/*
 * Int8 Conv2D (NHWC, groups, strides, dilations, leading pads) as im2col of two
 * output pixels at a time + the register-blocked GEMM core of requant_s8.h: each
 * pixel's receptive field is widened once to int16 (input offset added, padded
 * taps 0) into scratch, then every block of four output channels is a 2x4 block
 * of dot products (SMLAD on the DSP path). A 1x1 convolution is the same loop with
 * one tap per pixel.
 */
#include "requant_s8.h"
#include "conv_s8_mve.h"

/* Column element k (pair k / 2, half k % 2) in a column with the given pair stride. */
static void col_put(int16_t* col, int32_t pair_stride, int32_t k, int32_t v) {
  col[(k / 2) * pair_stride + (k & 1)] = (int16_t)v;
}

/* Column elements [k, k + n) from n int8 values with the offset added. */
static void col_widen(int16_t* col, int32_t pair_stride, int32_t k, const int8_t* src, int32_t n, int32_t offset) {
  if (n > 0 && (k & 1)) {
    col_put(col, pair_stride, k++, src[0] + offset);
    ++src;
    --n;
  }
  kiln_s8_widen_pairs(col + (k / 2) * pair_stride, src, n & ~1, offset, pair_stride);
  if (n & 1) col_put(col, pair_stride, k + n - 1, src[n - 1] + offset);
}

/* Column elements [k, k + n) set to 0 (padded taps). */
static void col_zero(int16_t* col, int32_t pair_stride, int32_t k, int32_t n) {
  if (n > 0 && (k & 1)) {
    col_put(col, pair_stride, k++, 0);
    --n;
  }
  kiln_s8_zero_pairs(col + (k / 2) * pair_stride, n & ~1, pair_stride);
  if (n & 1) col_put(col, pair_stride, k + n - 1, 0);
}

/* The im2col column of output pixel (oy, ox), group g, into col (pair_stride 2 for
 * a single column, 4 for one of an interleaved pair), zero padded to row_len. */
static void conv_column(const kiln_conv2d_s8_params_t* p, const int8_t* xb, int32_t oy, int32_t ox, int32_t g,
                        int32_t cin_g, int32_t row_len, int16_t* col, int32_t pair_stride) {
  const int32_t iy0 = oy * p->stride_h - p->pad_top, ix0 = ox * p->stride_w - p->pad_left;
  const int32_t row_taps = p->kernel_w * cin_g;
  /* With dilation_w 1 and one group, a kernel row is one run of input bytes. */
  const int contiguous_rows = p->dilation_w == 1 && cin_g == p->in_c;
  int32_t ky, kx, kx0 = 0, kx1 = p->kernel_w, k = 0;
  while (kx0 < p->kernel_w && ix0 + kx0 * p->dilation_w < 0) ++kx0;
  while (kx1 > kx0 && ix0 + (kx1 - 1) * p->dilation_w >= p->in_w) --kx1;
  for (ky = 0; ky < p->kernel_h; ++ky, k += row_taps) {
    const int32_t iy = iy0 + ky * p->dilation_h;
    const int8_t* row;
    if (iy < 0 || iy >= p->in_h || kx0 >= kx1) {
      col_zero(col, pair_stride, k, row_taps);
      continue;
    }
    row = xb + (int64_t)iy * p->in_w * p->in_c + (int64_t)g * cin_g;
    col_zero(col, pair_stride, k, kx0 * cin_g);
    if (contiguous_rows) {
      col_widen(col, pair_stride, k + kx0 * cin_g, row + (int64_t)(ix0 + kx0) * p->in_c, (kx1 - kx0) * cin_g,
                p->input_offset);
    } else {
      for (kx = kx0; kx < kx1; ++kx)
        col_widen(col, pair_stride, k + kx * cin_g, row + (int64_t)(ix0 + kx * p->dilation_w) * p->in_c, cin_g,
                  p->input_offset);
    }
    col_zero(col, pair_stride, k + kx1 * cin_g, (p->kernel_w - kx1) * cin_g);
  }
  col_zero(col, pair_stride, k, row_len - k);
}

kiln_status_t kiln_conv2d_s8(const kiln_conv2d_s8_params_t* p, const int8_t* x, const int16_t* w,
                             const int32_t* bias, const kiln_s8_requant_t* rq, int8_t* y, int16_t* scratch) {
  int32_t b, g, pix, cin_g, cout_g, row_len, n_pix;
  int64_t group_weights;
  kiln_s8_output_t o;
  if (p == NULL || x == NULL || w == NULL || rq == NULL || y == NULL || scratch == NULL) return KILN_ERR_NULL_POINTER;
  if (p->groups <= 0 || p->in_c % p->groups != 0 || p->out_c % p->groups != 0 || p->kernel_h <= 0 ||
      p->kernel_w <= 0 || p->stride_h <= 0 || p->stride_w <= 0 || p->dilation_h <= 0 || p->dilation_w <= 0)
    return KILN_ERR_BAD_ARGUMENT;
  if (!kiln_s8_aligned4(w) || !kiln_s8_aligned4(scratch)) return KILN_ERR_BAD_ARGUMENT;
#if KILN_S8_MVE
  return kiln_conv2d_s8_mve(p, x, w, bias, rq, y, scratch);
#endif
  cin_g = p->in_c / p->groups;
  cout_g = p->out_c / p->groups;
  row_len = (int32_t)KILN_S8_ROW_LEN((uint32_t)(p->kernel_h * p->kernel_w * cin_g));
  group_weights = (int64_t)((cout_g + 3) / 4) * 4 * row_len;
  n_pix = p->out_h * p->out_w;
  kiln_s8_output_init(&o, p->output_offset, p->act_min, p->act_max, rq, bias, p->out_c, (int64_t)p->kernel_h * p->kernel_w * cin_g);
  for (b = 0; b < p->batch; ++b) {
    const int8_t* xb = x + (int64_t)b * p->in_h * p->in_w * p->in_c;
    int8_t* yb = y + (int64_t)b * n_pix * p->out_c;
    for (pix = 0; pix < n_pix; pix += 2) {
      const int two = pix + 1 < n_pix;
      const int32_t oy0 = pix / p->out_w, ox0 = pix % p->out_w;
      const int32_t oy1 = (pix + 1) / p->out_w, ox1 = (pix + 1) % p->out_w;
      int8_t* y0 = yb + (int64_t)pix * p->out_c;
      for (g = 0; g < p->groups; ++g) {
        if (two) {
          conv_column(p, xb, oy0, ox0, g, cin_g, row_len, scratch, 4);
          conv_column(p, xb, oy1, ox1, g, cin_g, row_len, scratch + 2, 4);
        } else {
          conv_column(p, xb, oy0, ox0, g, cin_g, row_len, scratch, 2);
        }
        kiln_s8_gemm_columns(scratch, row_len, w + g * group_weights, bias != NULL ? bias + g * cout_g : NULL,
                             rq + g * cout_g, cout_g, &o, y0 + g * cout_g, two ? y0 + p->out_c + g * cout_g : NULL);
      }
    }
  }
  return KILN_OK;
}
