/*
 * Private helper of the int8 convolutions (conv_s8.c, conv_s8_pk.c): the im2col
 * column of one output pixel, widened to int16 (input offset added, padded taps
 * and the tail up to row_len 0), from an NHWC input or an NCHW one.
 */
#ifndef KILN_IM2COL_S8_H
#define KILN_IM2COL_S8_H

#include "requant_s8.h"

/* The column of output pixel (oy, ox), group g (cin_g input channels per group):
 * row_len int16 at col, the taps in (ky, kx, c) order. */
static inline void kiln_s8_im2col_column(const kiln_conv2d_s8_params_t* p, const int8_t* xb, int32_t oy,
                                         int32_t ox, int32_t g, int32_t cin_g, int32_t row_len, int16_t* col) {
  const int32_t iy0 = oy * p->stride_h - p->pad_top, ix0 = ox * p->stride_w - p->pad_left;
  const int32_t row_taps = p->kernel_w * cin_g;
  /* With dilation_w 1 and one group, a kernel row is one run of input bytes. */
  const int contiguous_rows = p->dilation_w == 1 && cin_g == p->in_c;
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
    row = xb + (int64_t)iy * p->in_w * p->in_c + (int64_t)g * cin_g;
    kiln_s8_zero(dst, kx0 * cin_g);
    if (contiguous_rows) {
      kiln_s8_widen(dst + kx0 * cin_g, row + (int64_t)(ix0 + kx0) * p->in_c, (kx1 - kx0) * cin_g, p->input_offset);
    } else {
      for (kx = kx0; kx < kx1; ++kx)
        kiln_s8_widen(dst + kx * cin_g, row + (int64_t)(ix0 + kx * p->dilation_w) * p->in_c, cin_g,
                      p->input_offset);
    }
    kiln_s8_zero(dst + kx1 * cin_g, (p->kernel_w - kx1) * cin_g);
  }
  kiln_s8_zero(dst, row_len - (int32_t)(dst - col));
}

/* The same column (one group) from an NCHW input: tap (ky, kx, c) is
 * xb[(c * in_h + iy) * in_w + ix]. */
static inline void kiln_s8_im2col_column_nchw(const kiln_conv2d_s8_params_t* p, const int8_t* xb, int32_t oy,
                                              int32_t ox, int32_t row_len, int16_t* col) {
  const int32_t iy0 = oy * p->stride_h - p->pad_top, ix0 = ox * p->stride_w - p->pad_left, c_n = p->in_c;
  const int64_t plane = (int64_t)p->in_h * p->in_w;
  int32_t ky, kx, c, kx0 = 0, kx1 = p->kernel_w;
  int16_t* dst = col;
  while (kx0 < p->kernel_w && ix0 + kx0 * p->dilation_w < 0) ++kx0;
  while (kx1 > kx0 && ix0 + (kx1 - 1) * p->dilation_w >= p->in_w) --kx1;
  for (ky = 0; ky < p->kernel_h; ++ky, dst += p->kernel_w * c_n) {
    const int32_t iy = iy0 + ky * p->dilation_h;
    const int8_t* row;
    if (iy < 0 || iy >= p->in_h || kx0 >= kx1) {
      kiln_s8_zero(dst, p->kernel_w * c_n);
      continue;
    }
    row = xb + (int64_t)iy * p->in_w + ix0;
    kiln_s8_zero(dst, kx0 * c_n);
    for (kx = kx0; kx < kx1; ++kx) {
      const int8_t* src = row + kx * p->dilation_w;
      int16_t* d = dst + kx * c_n;
      for (c = 0; c < c_n; ++c, src += plane) d[c] = (int16_t)(*src + p->input_offset);
    }
    kiln_s8_zero(dst + kx1 * c_n, (p->kernel_w - kx1) * c_n);
  }
  kiln_s8_zero(dst, row_len - (int32_t)(dst - col));
}

#endif /* KILN_IM2COL_S8_H */
