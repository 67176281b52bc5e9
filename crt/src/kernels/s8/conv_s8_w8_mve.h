/*
 * kiln_conv2d_s8_w8 on MVE (s8_mve.h): two output pixels at a time, each an int8
 * column (conv_s8_w8.h) in scratch, or the input pixel itself for a 1x1
 * convolution whose channels are a multiple of 16 and whose pixels are all inside
 * the input; then the int8 GEMM core (s8_mve_gemm8.h) per group.
 */
#ifndef KILN_CONV_S8_W8_MVE_H
#define KILN_CONV_S8_W8_MVE_H

#include "conv_s8_w8.h"
#include "s8_mve_gemm8.h"

#if KILN_S8_MVE

/* kiln_conv_w8_column when a kernel row is one run of input bytes (dilation_w 1,
 * one group): per kernel row one predicated copy, the padded parts filled with
 * the zero point. */
static void conv_w8_mve_column(const kiln_conv2d_s8_params_t* p, const int8_t* xb, int32_t oy, int32_t ox,
                               int32_t row_len8, int8_t* col) {
  const int32_t iy0 = oy * p->stride_h - p->pad_top, ix0 = ox * p->stride_w - p->pad_left;
  const int32_t in_c = p->in_c, row_taps = p->kernel_w * in_c, row_bytes = p->in_w * in_c;
  const int8x16_t zp = vdupq_n_s8((int8_t)-p->input_offset);
  int32_t ky, kx0 = 0, kx1 = p->kernel_w, n;
  int8_t* dst = col;
  while (kx0 < p->kernel_w && ix0 + kx0 < 0) ++kx0;
  while (kx1 > kx0 && ix0 + kx1 - 1 >= p->in_w) --kx1;
  if (row_taps <= 16) { /* a kernel row is one vector: one predicated store (and load) per row */
    const mve_pred16_t row_p = vctp8q((uint32_t)row_taps), copy_p = vctp8q((uint32_t)((kx1 - kx0) * in_c));
    const int partial = kx0 > 0 || kx1 < p->kernel_w;
    const int8_t* sp = xb + (ix0 + kx0) * in_c;
    int8_t* d = dst + kx0 * in_c;
    for (ky = 0; ky < p->kernel_h; ++ky, dst += row_taps, d += row_taps) {
      const int32_t iy = iy0 + ky * p->dilation_h;
      if (iy < 0 || iy >= p->in_h || kx0 >= kx1) {
        vstrbq_p_s8(dst, zp, row_p);
      } else {
        if (partial) vstrbq_p_s8(dst, zp, row_p);
        vstrbq_p_s8(d, vldrbq_z_s8(sp + iy * row_bytes, copy_p), copy_p);
      }
    }
  } else {
  for (ky = 0; ky < p->kernel_h; ++ky, dst += row_taps) {
    const int32_t iy = iy0 + ky * p->dilation_h;
    int8_t* d = dst;
    if (iy < 0 || iy >= p->in_h || kx0 >= kx1) {
      for (n = row_taps; n > 0; n -= 16, d += 16) vstrbq_p_s8(d, zp, vctp8q((uint32_t)n));
      continue;
    }
    if (kx0 > 0 || kx1 < p->kernel_w) /* the zero point first, the row's inside part over it */
      for (n = row_taps; n > 0; n -= 16, d += 16) vstrbq_p_s8(d, zp, vctp8q((uint32_t)n));
    {
      const int8_t* sp = xb + iy * row_bytes + (ix0 + kx0) * in_c;
      d = dst + kx0 * in_c;
      for (n = (kx1 - kx0) * in_c; n > 0; n -= 16, d += 16, sp += 16) {
        const mve_pred16_t live = vctp8q((uint32_t)n);
        vstrbq_p_s8(d, vldrbq_z_s8(sp, live), live);
      }
    }
  }
  }
  for (n = row_len8 - (int32_t)(dst - col); n > 0; n -= 16, dst += 16)
    vstrbq_p_s8(dst, vdupq_n_s8(0), vctp8q((uint32_t)n));
}

static kiln_status_t kiln_conv2d_s8_w8_mve(const kiln_conv2d_s8_params_t* p, const int8_t* x, const int8_t* w,
                                           const int32_t* kernel_bias, const kiln_s8_requant_t* rq, int8_t* y,
                                           int8_t* scratch) {
  const int32_t cin_g = p->in_c / p->groups, cout_g = p->out_c / p->groups;
  const int32_t row_len8 = (int32_t)KILN_S8_ROW_LEN8((uint32_t)(p->kernel_h * p->kernel_w * cin_g));
  const int32_t group_weights = (cout_g + 3) / 4 * 4 * row_len8;
  const int32_t n_pix = p->out_h * p->out_w;
  const int direct = p->kernel_h == 1 && p->kernel_w == 1 && p->groups == 1 && p->in_c % 16 == 0 &&
                     p->pad_top == 0 && p->pad_left == 0 && (p->out_h - 1) * p->stride_h < p->in_h &&
                     (p->out_w - 1) * p->stride_w < p->in_w;
  const int contiguous_rows = p->dilation_w == 1 && p->groups == 1;
  int8_t* col1 = scratch + row_len8;
  int32_t b, g, pix;
  kiln_s8_mve_output_t m;
  kiln_s8_mve_output_init(&m, p->output_offset, p->act_min, p->act_max, 1);
  m.right_only = kiln_s8_mve_right_only(rq, p->out_c);
  for (b = 0; b < p->batch; ++b) {
    const int8_t* xb = x + (int64_t)b * p->in_h * p->in_w * p->in_c;
    int8_t* yb = y + (int64_t)b * n_pix * p->out_c;
    for (pix = 0; pix < n_pix; pix += 2) {
      const int two = pix + 1 < n_pix;
      const int32_t oy0 = pix / p->out_w, ox0 = pix % p->out_w;
      const int32_t oy1 = (pix + 1) / p->out_w, ox1 = (pix + 1) % p->out_w;
      int8_t* y0 = yb + (int64_t)pix * p->out_c;
      for (g = 0; g < p->groups; ++g) {
        const int8_t* c0 = scratch;
        const int8_t* c1 = col1;
        if (direct) {
          c0 = xb + (oy0 * p->stride_h * p->in_w + ox0 * p->stride_w) * p->in_c;
          c1 = two ? xb + (oy1 * p->stride_h * p->in_w + ox1 * p->stride_w) * p->in_c : c0;
        } else if (contiguous_rows) {
          conv_w8_mve_column(p, xb, oy0, ox0, row_len8, scratch);
          if (two) conv_w8_mve_column(p, xb, oy1, ox1, row_len8, col1);
        } else {
          kiln_conv_w8_column(p, xb, oy0, ox0, g, cin_g, row_len8, scratch);
          if (two) kiln_conv_w8_column(p, xb, oy1, ox1, g, cin_g, row_len8, col1);
        }
        kiln_s8_mve_gemm8(c0, c1, row_len8, w + g * group_weights, kernel_bias + g * cout_g, rq + g * cout_g, cout_g,
                          &m, y0 + g * cout_g, two ? y0 + p->out_c + g * cout_g : NULL);
      }
    }
  }
  return KILN_OK;
}

#endif /* KILN_S8_MVE */

#endif /* KILN_CONV_S8_W8_MVE_H */
