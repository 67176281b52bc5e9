/*
 * Int8 Conv2D on MVE (s8_mve.h): im2col of two output pixels at a time into two
 * contiguous int16 columns in scratch (input offset added, padded taps 0), then
 * the MVE GEMM core (s8_mve_gemm.h) per group. A kernel row that lies in one run
 * of input bytes (dilation_w 1, one group) is widened as one run; a 1x1
 * (pointwise) convolution is one run of in_c channels per pixel.
 */
#ifndef KILN_CONV_S8_MVE_H
#define KILN_CONV_S8_MVE_H

#include "s8_mve_gemm.h"

#if KILN_S8_MVE

/* The im2col column of output pixel (oy, ox), group g: row_len int16 at dst. */
static void conv_mve_column(const kiln_conv2d_s8_params_t* p, const int8_t* xb, int32_t oy, int32_t ox, int32_t g,
                            int32_t cin_g, int32_t row_len, int16_t* dst) {
  const int32_t iy0 = oy * p->stride_h - p->pad_top, ix0 = ox * p->stride_w - p->pad_left;
  const int32_t row_taps = p->kernel_w * cin_g;
  const int contiguous_rows = p->dilation_w == 1 && cin_g == p->in_c;
  int32_t ky, kx, kx0 = 0, kx1 = p->kernel_w, k = 0;
  while (kx0 < p->kernel_w && ix0 + kx0 * p->dilation_w < 0) ++kx0;
  while (kx1 > kx0 && ix0 + (kx1 - 1) * p->dilation_w >= p->in_w) --kx1;
  for (ky = 0; ky < p->kernel_h; ++ky, k += row_taps) {
    const int32_t iy = iy0 + ky * p->dilation_h;
    const int8_t* row;
    if (iy < 0 || iy >= p->in_h || kx0 >= kx1) {
      kiln_s8_mve_zero(dst + k, row_taps);
      continue;
    }
    row = xb + (int64_t)iy * p->in_w * p->in_c + (int64_t)g * cin_g;
    kiln_s8_mve_zero(dst + k, kx0 * cin_g);
    if (contiguous_rows) {
      kiln_s8_mve_widen(dst + k + kx0 * cin_g, row + (int64_t)(ix0 + kx0) * p->in_c, (kx1 - kx0) * cin_g,
                        p->input_offset);
    } else {
      for (kx = kx0; kx < kx1; ++kx)
        kiln_s8_mve_widen(dst + k + kx * cin_g, row + (int64_t)(ix0 + kx * p->dilation_w) * p->in_c, cin_g,
                          p->input_offset);
    }
    kiln_s8_mve_zero(dst + k + kx1 * cin_g, (p->kernel_w - kx1) * cin_g);
  }
  kiln_s8_mve_zero(dst + k, row_len - k);
}

/* kiln_conv2d_s8 on MVE, called after the public function checked the arguments. */
static kiln_status_t kiln_conv2d_s8_mve(const kiln_conv2d_s8_params_t* p, const int8_t* x, const int16_t* w,
                                        const int32_t* bias, const kiln_s8_requant_t* rq, int8_t* y,
                                        int16_t* scratch) {
  const int32_t cin_g = p->in_c / p->groups, cout_g = p->out_c / p->groups;
  const int32_t row_len = (int32_t)KILN_S8_ROW_LEN((uint32_t)(p->kernel_h * p->kernel_w * cin_g));
  const int64_t group_weights = (int64_t)((cout_g + 3) / 4) * 4 * row_len;
  const int32_t n_pix = p->out_h * p->out_w;
  int16_t* col1 = scratch + row_len;
  int32_t b, g, pix;
  kiln_s8_mve_output_t m;
  kiln_s8_mve_output_init(&m, p->output_offset, p->act_min, p->act_max, 1);
  for (b = 0; b < p->batch; ++b) {
    const int8_t* xb = x + (int64_t)b * p->in_h * p->in_w * p->in_c;
    int8_t* yb = y + (int64_t)b * n_pix * p->out_c;
    for (pix = 0; pix < n_pix; pix += 2) {
      const int two = pix + 1 < n_pix;
      int8_t* y0 = yb + (int64_t)pix * p->out_c;
      for (g = 0; g < p->groups; ++g) {
        conv_mve_column(p, xb, pix / p->out_w, pix % p->out_w, g, cin_g, row_len, scratch);
        if (two) conv_mve_column(p, xb, (pix + 1) / p->out_w, (pix + 1) % p->out_w, g, cin_g, row_len, col1);
        kiln_s8_mve_gemm(scratch, col1, row_len, w + g * group_weights, bias != NULL ? bias + g * cout_g : NULL,
                         rq + g * cout_g, cout_g, &m, y0 + g * cout_g, two ? y0 + p->out_c + g * cout_g : NULL);
      }
    }
  }
  return KILN_OK;
}

#endif /* KILN_S8_MVE */

#endif /* KILN_CONV_S8_MVE_H */
