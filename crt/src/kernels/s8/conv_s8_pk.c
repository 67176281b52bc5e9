/*
 * The packed form of int8 Conv2D (one group) and FullyConnected (nn_s8.h,
 * kiln_conv2d_s8_pk): the same im2col of one output pixel at a time as
 * conv_s8.c (a pointwise convolution widens the pixel's channels, a window inside
 * the input one run per kernel row, a border window with its padded taps 0),
 * then every block of the packed stream against the column (pk_s8.h).
 */
#include "pk_s8.h"

/* The im2col column of output pixel (oy, ox): row_len int16 at col. */
static void pk_conv_column(const kiln_conv2d_s8_params_t* p, const int8_t* xb, int32_t oy, int32_t ox,
                           int32_t row_len, int16_t* col) {
  const int32_t iy0 = oy * p->stride_h - p->pad_top, ix0 = ox * p->stride_w - p->pad_left;
  const int32_t row_taps = p->kernel_w * p->in_c;
  int32_t ky, kx, kx0 = 0, kx1 = p->kernel_w;
  int16_t* dst = col;
  while (kx0 < p->kernel_w && ix0 + kx0 * p->dilation_w < 0) ++kx0;
  while (kx1 > kx0 && ix0 + (kx1 - 1) * p->dilation_w >= p->in_w) --kx1;
  for (ky = 0; ky < p->kernel_h; ++ky, dst += row_taps) {
    const int32_t iy = iy0 + ky * p->dilation_h;
    const int8_t* row;
    if (iy < 0 || iy >= p->in_h || kx0 >= kx1) {
      kiln_s8_zero(dst, row_taps);
      continue;
    }
    row = xb + (int64_t)iy * p->in_w * p->in_c;
    kiln_s8_zero(dst, kx0 * p->in_c);
    if (p->dilation_w == 1) {
      kiln_s8_widen(dst + kx0 * p->in_c, row + (int64_t)(ix0 + kx0) * p->in_c, (kx1 - kx0) * p->in_c,
                    p->input_offset);
    } else {
      for (kx = kx0; kx < kx1; ++kx)
        kiln_s8_widen(dst + kx * p->in_c, row + (int64_t)(ix0 + kx * p->dilation_w) * p->in_c, p->in_c,
                      p->input_offset);
    }
    kiln_s8_zero(dst + kx1 * p->in_c, (p->kernel_w - kx1) * p->in_c);
  }
  kiln_s8_zero(dst, row_len - (int32_t)(dst - col));
}

kiln_status_t kiln_conv2d_s8_pk(const kiln_conv2d_s8_params_t* p, const int8_t* x, const int32_t* packed, int8_t* y,
                                int16_t* scratch) {
  int32_t b, oy, ox, ox_lo, ox_hi, row_len, taps, r;
  kiln_s8_pk_t g;
  if (p == NULL || x == NULL || packed == NULL || y == NULL || scratch == NULL) return KILN_ERR_NULL_POINTER;
  if (p->groups != 1 || p->kernel_h <= 0 || p->kernel_w <= 0 || p->stride_h <= 0 || p->stride_w <= 0 ||
      p->dilation_h <= 0 || p->dilation_w <= 0 || p->act_min != -128 || p->act_max != 127)
    return KILN_ERR_BAD_ARGUMENT;
  if (!kiln_s8_aligned4(packed) || !kiln_s8_aligned4(scratch)) return KILN_ERR_BAD_ARGUMENT;
  taps = p->kernel_h * p->kernel_w * p->in_c;
  row_len = (int32_t)KILN_S8_ROW_LEN((uint32_t)taps);
  kiln_s8_pk_init(&g, packed, row_len, p->out_c, p->output_offset);
  if (p->kernel_h == 1 && p->kernel_w == 1 && p->stride_h == 1 && p->stride_w == 1 && p->pad_top == 0 &&
      p->pad_left == 0 && p->out_h == p->in_h && p->out_w == p->in_w) {
    /* Pointwise: every pixel's column is its channels. */
    const int32_t n = p->batch * p->in_h * p->in_w;
    int32_t i;
    for (i = 0; i < n; ++i, x += p->in_c, y += p->out_c) {
      kiln_s8_pk_widen(scratch, x, p->in_c, row_len, p->input_offset);
      kiln_s8_pk_column(&g, scratch, y);
    }
    return KILN_OK;
  }
  /* Output columns [ox_lo, ox_hi) have every kernel column inside the input. */
  ox_lo = 0;
  while (ox_lo < p->out_w && ox_lo * p->stride_w - p->pad_left < 0) ++ox_lo;
  ox_hi = ox_lo;
  while (ox_hi < p->out_w && ox_hi * p->stride_w - p->pad_left + (p->kernel_w - 1) * p->dilation_w < p->in_w) ++ox_hi;
  for (b = 0; b < p->batch; ++b) {
    const int8_t* xb = x + (int64_t)b * p->in_h * p->in_w * p->in_c;
    int8_t* yp = y + (int64_t)b * p->out_h * p->out_w * p->out_c;
    for (oy = 0; oy < p->out_h; ++oy) {
      const int32_t iy0 = oy * p->stride_h - p->pad_top;
      const int rows_inside = iy0 >= 0 && iy0 + (p->kernel_h - 1) * p->dilation_h < p->in_h;
      for (ox = 0; ox < p->out_w; ++ox, yp += p->out_c) {
        if (rows_inside && p->dilation_w == 1 && ox >= ox_lo && ox < ox_hi) {
          /* Inside the input a kernel row is one run of kernel_w * in_c bytes. */
          const int32_t run = p->kernel_w * p->in_c;
          const int8_t* src = xb + ((int64_t)iy0 * p->in_w + ox * p->stride_w - p->pad_left) * p->in_c;
          int16_t* dst = scratch;
          for (r = 0; r < p->kernel_h; ++r, src += (int64_t)p->dilation_h * p->in_w * p->in_c, dst += run)
            kiln_s8_widen(dst, src, run, p->input_offset);
          kiln_s8_zero(dst, row_len - taps);
        } else {
          pk_conv_column(p, xb, oy, ox, row_len, scratch);
        }
        kiln_s8_pk_column(&g, scratch, yp);
      }
    }
  }
  return KILN_OK;
}

kiln_status_t kiln_fully_connected_s8_pk(const kiln_fully_connected_s8_params_t* p, const int8_t* x,
                                         const int32_t* packed, int8_t* y, int16_t* scratch) {
  int32_t row_len, i;
  kiln_s8_pk_t g;
  if (p == NULL || x == NULL || packed == NULL || y == NULL || scratch == NULL) return KILN_ERR_NULL_POINTER;
  if (p->rows < 0 || p->in_features <= 0 || p->out_features <= 0 || p->act_min != -128 || p->act_max != 127)
    return KILN_ERR_BAD_ARGUMENT;
  if (!kiln_s8_aligned4(packed) || !kiln_s8_aligned4(scratch)) return KILN_ERR_BAD_ARGUMENT;
  row_len = (int32_t)KILN_S8_ROW_LEN((uint32_t)p->in_features);
  kiln_s8_pk_init(&g, packed, row_len, p->out_features, p->output_offset);
  for (i = 0; i < p->rows; ++i, x += p->in_features, y += p->out_features) {
    kiln_s8_pk_widen(scratch, x, p->in_features, row_len, p->input_offset);
    kiln_s8_pk_column(&g, scratch, y);
  }
  return KILN_OK;
}
