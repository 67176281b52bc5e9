/*
 * The im2col column of kiln_conv2d_s8_w8 (conv_s8_w8.c and its MVE path
 * conv_s8_w8_mve.h): raw int8 input values, a padded tap the input zero point
 * (-input_offset, which the kernel bias's folded input offset cancels).
 */
#ifndef KILN_CONV_S8_W8_H
#define KILN_CONV_S8_W8_H

#include "s8_mve.h"
#include "s8_w8.h"

/* n bytes copied / set: on MVE a predicated 16-byte loop (im2col runs are short:
 * a call into the C library costs more than the copy). */
static inline void kiln_w8_copy(int8_t* dst, const int8_t* src, int32_t n) {
#if KILN_S8_MVE
  for (; n > 0; n -= 16, dst += 16, src += 16) {
    const mve_pred16_t live = vctp8q((uint32_t)n);
    vstrbq_p_s8(dst, vldrbq_z_s8(src, live), live);
  }
#else
  memcpy(dst, src, (size_t)n);
#endif
}

static inline void kiln_w8_fill(int8_t* dst, int v, int32_t n) {
#if KILN_S8_MVE
  const int8x16_t value = vdupq_n_s8((int8_t)v);
  for (; n > 0; n -= 16, dst += 16) vstrbq_p_s8(dst, value, vctp8q((uint32_t)n));
#else
  memset(dst, v, (size_t)n);
#endif
}

/* Output pixel (oy, ox), group g: the kernel's taps in (kh, kw, c) order at col,
 * then zeros up to row_len8 (their weights are 0). */
static inline void kiln_conv_w8_column(const kiln_conv2d_s8_params_t* p, const int8_t* xb, int32_t oy, int32_t ox,
                                       int32_t g, int32_t cin_g, int32_t row_len8, int8_t* col) {
  const int32_t iy0 = oy * p->stride_h - p->pad_top, ix0 = ox * p->stride_w - p->pad_left;
  const int32_t row_taps = p->kernel_w * cin_g;
  const int zp = -p->input_offset;
  /* With dilation_w 1 and one group, a kernel row is one run of input bytes. */
  const int contiguous_rows = p->dilation_w == 1 && cin_g == p->in_c;
  int32_t ky, kx, kx0 = 0, kx1 = p->kernel_w;
  int8_t* dst = col;
  while (kx0 < p->kernel_w && ix0 + kx0 * p->dilation_w < 0) ++kx0;
  while (kx1 > kx0 && ix0 + (kx1 - 1) * p->dilation_w >= p->in_w) --kx1;
  for (ky = 0; ky < p->kernel_h; ++ky, dst += row_taps) {
    const int32_t iy = iy0 + ky * p->dilation_h;
    const int8_t* row;
    if (iy < 0 || iy >= p->in_h || kx0 >= kx1) {
      kiln_w8_fill(dst, zp, row_taps);
      continue;
    }
    row = xb + ((int64_t)iy * p->in_w + ix0) * p->in_c + (int64_t)g * cin_g;
    kiln_w8_fill(dst, zp, kx0 * cin_g);
    if (contiguous_rows) {
      kiln_w8_copy(dst + kx0 * cin_g, row + (int64_t)kx0 * p->in_c, (kx1 - kx0) * cin_g);
    } else {
      for (kx = kx0; kx < kx1; ++kx)
        kiln_w8_copy(dst + kx * cin_g, row + (int64_t)kx * p->dilation_w * p->in_c, cin_g);
    }
    kiln_w8_fill(dst + kx1 * cin_g, zp, (p->kernel_w - kx1) * cin_g);
  }
  kiln_w8_fill(dst, 0, row_len8 - (int32_t)(dst - col));
}

#endif /* KILN_CONV_S8_W8_H */
