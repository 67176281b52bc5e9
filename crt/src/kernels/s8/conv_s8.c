/*
 * Int8 Conv2D (NHWC, groups, strides, dilations, leading pads) as im2col of one
 * output pixel at a time + the GEMM core of requant_s8.h: the pixel's receptive
 * field is widened once to int16 (input offset added, padded taps 0) into
 * scratch, then every block of four output channels is four dot products with
 * the accumulators in registers (SMLAD on the DSP path). A 1x1 convolution is the
 * same loop with one tap per pixel (the column is the pixel's channels).
 * kiln_conv2d_s8_nchw reads an NCHW input (one group): every pixel's column
 * gathered from the channel planes, the same GEMM core.
 */
#include "requant_s8.h"
#include "conv_s8_mve.h"
#include "im2col_s8.h"

static kiln_status_t conv2d_s8(const kiln_conv2d_s8_params_t* p, const int8_t* x, const int16_t* w,
                               const int32_t* bias, const kiln_s8_requant_t* rq, int8_t* y, int16_t* scratch,
                               int nchw) {
  int32_t b, g, oy, ox, ox_lo, ox_hi, cin_g, cout_g, row_len;
  int64_t group_weights;
  kiln_s8_output_t o;
  kiln_s8_gemm_t gemm, interior;
  if (p == NULL || x == NULL || w == NULL || rq == NULL || y == NULL || scratch == NULL) return KILN_ERR_NULL_POINTER;
  if (p->groups <= 0 || p->in_c % p->groups != 0 || p->out_c % p->groups != 0 || p->kernel_h <= 0 ||
      p->kernel_w <= 0 || p->stride_h <= 0 || p->stride_w <= 0 || p->dilation_h <= 0 || p->dilation_w <= 0)
    return KILN_ERR_BAD_ARGUMENT;
  if (!kiln_s8_aligned4(w) || !kiln_s8_aligned4(scratch) || (nchw && p->groups != 1)) return KILN_ERR_BAD_ARGUMENT;
#if KILN_S8_MVE
  if (!nchw) return kiln_conv2d_s8_mve(p, x, w, bias, rq, y, scratch);
#endif
  cin_g = p->in_c / p->groups;
  cout_g = p->out_c / p->groups;
  row_len = (int32_t)KILN_S8_ROW_LEN((uint32_t)(p->kernel_h * p->kernel_w * cin_g));
  group_weights = (int64_t)((cout_g + 3) / 4) * 4 * row_len;
  kiln_s8_output_init(&o, p->output_offset, p->act_min, p->act_max, rq, bias, p->out_c,
                      (int64_t)p->kernel_h * p->kernel_w * cin_g);
  kiln_s8_gemm_init(&gemm, row_len, cout_g, w, bias, rq, &o);
  if (nchw) {
    for (b = 0; b < p->batch; ++b) {
      const int8_t* xb = x + (int64_t)b * p->in_h * p->in_w * p->in_c;
      int8_t* yp = y + (int64_t)b * p->out_h * p->out_w * p->out_c;
      for (oy = 0; oy < p->out_h; ++oy)
        for (ox = 0; ox < p->out_w; ++ox, yp += p->out_c) {
          kiln_s8_im2col_column_nchw(p, xb, oy, ox, row_len, scratch);
          kiln_s8_gemm(&gemm, NULL, 1, scratch, yp);
        }
    }
    return KILN_OK;
  }
  if (p->groups == 1 && p->kernel_h == 1 && p->kernel_w == 1 && p->stride_h == 1 && p->stride_w == 1 &&
      p->pad_top == 0 && p->pad_left == 0 && p->out_h == p->in_h && p->out_w == p->in_w) {
    /* Pointwise: every pixel's column is its channels, one run over the image. */
    gemm.runs = 1, gemm.run_len = p->in_c, gemm.x_step = p->in_c, gemm.y_step = p->out_c;
    gemm.input_offset = p->input_offset;
    kiln_s8_gemm(&gemm, x, p->batch * p->in_h * p->in_w, scratch, y);
    return KILN_OK;
  }
  /* Output columns [ox_lo, ox_hi) have every kernel column inside the input. */
  ox_lo = 0;
  while (ox_lo < p->out_w && ox_lo * p->stride_w - p->pad_left < 0) ++ox_lo;
  ox_hi = ox_lo;
  while (ox_hi < p->out_w && ox_hi * p->stride_w - p->pad_left + (p->kernel_w - 1) * p->dilation_w < p->in_w) ++ox_hi;
  /* Inside the input, with one group and dilation_w 1, a window's kernel row is
   * one run of kernel_w * in_c bytes. */
  interior = gemm;
  interior.runs = p->kernel_h, interior.run_len = p->kernel_w * p->in_c;
  interior.run_step = p->dilation_h * p->in_w * p->in_c;
  interior.x_step = p->stride_w * p->in_c, interior.y_step = p->out_c;
  interior.input_offset = p->input_offset;
  for (b = 0; b < p->batch; ++b) {
    const int8_t* xb = x + (int64_t)b * p->in_h * p->in_w * p->in_c;
    int8_t* yp = y + (int64_t)b * p->out_h * p->out_w * p->out_c;
    for (oy = 0; oy < p->out_h; ++oy) {
      const int32_t iy0 = oy * p->stride_h - p->pad_top;
      const int rows_inside = iy0 >= 0 && iy0 + (p->kernel_h - 1) * p->dilation_h < p->in_h;
      for (ox = 0; ox < p->out_w; ++ox, yp += p->out_c) {
        const int32_t ix0 = ox * p->stride_w - p->pad_left;
        if (p->groups == 1 && p->dilation_w == 1 && rows_inside && ox == ox_lo && ox_lo < ox_hi) {
          kiln_s8_gemm(&interior, xb + ((int64_t)iy0 * p->in_w + ix0) * p->in_c, ox_hi - ox_lo, scratch, yp);
          yp += (int64_t)(ox_hi - ox_lo - 1) * p->out_c;
          ox = ox_hi - 1;
          continue;
        }
        for (g = 0; g < p->groups; ++g) {
          kiln_s8_gemm_t gg;
          kiln_s8_im2col_column(p, xb, oy, ox, g, cin_g, row_len, scratch);
          kiln_s8_gemm_init(&gg, row_len, cout_g, w + g * group_weights, bias != NULL ? bias + g * cout_g : NULL,
                            rq + g * cout_g, &o);
          kiln_s8_gemm(&gg, NULL, 1, scratch, yp + g * cout_g);
        }
      }
    }
  }
  return KILN_OK;
}

kiln_status_t kiln_conv2d_s8(const kiln_conv2d_s8_params_t* p, const int8_t* x, const int16_t* w,
                             const int32_t* bias, const kiln_s8_requant_t* rq, int8_t* y, int16_t* scratch) {
  return conv2d_s8(p, x, w, bias, rq, y, scratch, 0);
}

kiln_status_t kiln_conv2d_s8_nchw(const kiln_conv2d_s8_params_t* p, const int8_t* x, const int16_t* w,
                                  const int32_t* bias, const kiln_s8_requant_t* rq, int8_t* y, int16_t* scratch) {
  return conv2d_s8(p, x, w, bias, rq, y, scratch, 1);
}
