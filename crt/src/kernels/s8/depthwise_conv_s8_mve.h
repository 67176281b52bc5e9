/*
 * Int8 depthwise Conv2D on MVE (s8_mve.h), depth multiplier 1: per output pixel,
 * eight channels at a time in int16 lanes. Per tap, VLDRB widens eight input
 * channels (the input offset added in the lanes), one gather (VLDRH with offsets)
 * reads the eight channels' weights from two of the compiler's blocks of four
 * (nn_s8.h: [Cout/4][KH*KW][4] int16), and VMULLB / VMULLT multiply the even and
 * the odd lanes into two int32x4 accumulators. The even and odd channels are then
 * requantized as two vectors and scattered to the output (byte stride 2). A 3x3
 * window entirely inside the input is unrolled.
 */
#ifndef KILN_DEPTHWISE_CONV_S8_MVE_H
#define KILN_DEPTHWISE_CONV_S8_MVE_H

#include "s8_mve.h"

#if KILN_S8_MVE

/* Whether the MVE path takes these parameters: depth multiplier 1, and the byte
 * offset between two weight blocks (taps * 8) fits the gather's 16-bit offsets. */
static inline int kiln_depthwise_s8_mve_ok(const kiln_depthwise_conv2d_s8_params_t* p) {
  return p->depth_multiplier == 1 && (int64_t)p->kernel_h * p->kernel_w * 8 + 6 <= 0xFFFF;
}

/* One tap of eight channels: input at xp, weights at wp (with w_off). The empty
 * asm keeps each tap's loads next to its multiplies: GCC otherwise hoists all the
 * loads of an unrolled window and spills the vectors to the stack. */
#define DW_MVE_TAP(xp, wp)                                                      \
  do {                                                                          \
    const int16x8_t xv_ = vaddq_n_s16(vldrbq_z_s16((xp), live), offset);        \
    const int16x8_t wv_ = vldrhq_gather_offset_z_s16((wp), w_off, live);        \
    even = vaddq_s32(even, vmullbq_int_s16(xv_, wv_));                          \
    odd = vaddq_s32(odd, vmulltq_int_s16(xv_, wv_));                            \
    __asm__ volatile("" : "+w"(even), "+w"(odd) : : "memory");                  \
  } while (0)

/* The output channels of one pixel whose in-bounds taps start at input x (channel
 * 0) and weight tap `tap_offset`, `rows` x `cols` of them. */
static void dw_mve_pixel(const kiln_depthwise_conv2d_s8_params_t* p, const int8_t* x, int32_t tap_offset,
                         int32_t rows, int32_t cols, const int16_t* w, const int32_t* bias,
                         const kiln_s8_requant_t* rq, const kiln_s8_mve_output_t* m, int8_t* y) {
  const int32_t taps = p->kernel_h * p->kernel_w;
  const int32_t tap_step = p->dilation_w * p->in_c, row_step = p->dilation_h * p->in_w * p->in_c;
  const int16_t offset = (int16_t)p->input_offset;
  const int full3x3 = p->kernel_w == 3 && rows == 3 && cols == 3;
  /* Lanes 0..3 from the block of channels c..c+3, lanes 4..7 from the next block. */
  const uint16x8_t w_off = vaddq_u16(vidupq_n_u16(0, 2),
                                     vdupq_m_n_u16(vdupq_n_u16(0), (uint16_t)(taps * 8 - 8), vctp16q(8) & ~vctp16q(4)));
  const uint32x4_t even_lanes = vidupq_n_u32(0, 2);
  int32_t c, ky, kx;
  for (c = 0; c < p->out_c; c += 8) {
    const int32_t n = p->out_c - c < 8 ? p->out_c - c : 8;
    const mve_pred16_t live = vctp16q((uint32_t)n);
    const int16_t* wb = w + ((int64_t)(c / 4) * taps + tap_offset) * 4;
    const int8_t* xc = x + c;
    int32x4_t even = vdupq_n_s32(0), odd = vdupq_n_s32(0);
    if (bias != NULL) {
      even = vldrwq_gather_shifted_offset_z_s32(bias + c, even_lanes, vctp32q((uint32_t)(n + 1) / 2));
      odd = vldrwq_gather_shifted_offset_z_s32(bias + c + 1, even_lanes, vctp32q((uint32_t)n / 2));
    }
    if (full3x3) {
      const int8_t* x1 = xc + row_step;
      const int8_t* x2 = x1 + row_step;
      DW_MVE_TAP(xc, wb); DW_MVE_TAP(xc + tap_step, wb + 4); DW_MVE_TAP(xc + 2 * tap_step, wb + 8);
      DW_MVE_TAP(x1, wb + 12); DW_MVE_TAP(x1 + tap_step, wb + 16); DW_MVE_TAP(x1 + 2 * tap_step, wb + 20);
      DW_MVE_TAP(x2, wb + 24); DW_MVE_TAP(x2 + tap_step, wb + 28); DW_MVE_TAP(x2 + 2 * tap_step, wb + 32);
    } else {
      for (ky = 0; ky < rows; ++ky) {
        const int8_t* xp = xc + (int64_t)ky * row_step;
        const int16_t* wp = wb + (int64_t)ky * p->kernel_w * 4;
        for (kx = 0; kx < cols; ++kx, xp += tap_step, wp += 4) DW_MVE_TAP(xp, wp);
      }
    }
    {
      const mve_pred16_t live_even = vctp32q((uint32_t)(n + 1) / 2), live_odd = vctp32q((uint32_t)n / 2);
      const kiln_s8_mve_rq4_t q_even = kiln_s8_mve_rq4(rq + c, m, live_even);
      kiln_s8_mve_scatter(even, &q_even, m, live_even, y + c);
      if (n > 1) {
        const kiln_s8_mve_rq4_t q_odd = kiln_s8_mve_rq4(rq + c + 1, m, live_odd);
        kiln_s8_mve_scatter(odd, &q_odd, m, live_odd, y + c + 1);
      }
    }
  }
}
#undef DW_MVE_TAP

/* kiln_depthwise_conv2d_s8 on MVE for parameters kiln_depthwise_s8_mve_ok takes,
 * called after the public function checked the arguments. */
static kiln_status_t kiln_depthwise_conv2d_s8_mve(const kiln_depthwise_conv2d_s8_params_t* p, const int8_t* x,
                                                  const int16_t* w, const int32_t* bias, const kiln_s8_requant_t* rq,
                                                  int8_t* y) {
  int32_t b, oy, ox;
  kiln_s8_mve_output_t m;
  kiln_s8_mve_output_init(&m, p->output_offset, p->act_min, p->act_max, 2);
  for (b = 0; b < p->batch; ++b) {
    const int8_t* xb = x + (int64_t)b * p->in_h * p->in_w * p->in_c;
    for (oy = 0; oy < p->out_h; ++oy) {
      const int32_t iy0 = oy * p->stride_h - p->pad_top;
      int32_t ky0 = 0, ky1 = p->kernel_h;
      while (ky0 < p->kernel_h && iy0 + ky0 * p->dilation_h < 0) ++ky0;
      while (ky1 > ky0 && iy0 + (ky1 - 1) * p->dilation_h >= p->in_h) --ky1;
      for (ox = 0; ox < p->out_w; ++ox) {
        const int32_t ix0 = ox * p->stride_w - p->pad_left;
        int8_t* yp = y + (((int64_t)b * p->out_h + oy) * p->out_w + ox) * p->out_c;
        int32_t kx0 = 0, kx1 = p->kernel_w;
        const int8_t* xw;
        while (kx0 < p->kernel_w && ix0 + kx0 * p->dilation_w < 0) ++kx0;
        while (kx1 > kx0 && ix0 + (kx1 - 1) * p->dilation_w >= p->in_w) --kx1;
        xw = ky1 > ky0 && kx1 > kx0
                 ? xb + ((int64_t)(iy0 + ky0 * p->dilation_h) * p->in_w + ix0 + kx0 * p->dilation_w) * p->in_c
                 : xb;
        dw_mve_pixel(p, xw, ky0 * p->kernel_w + kx0, ky1 - ky0, kx1 - kx0, w, bias, rq, &m, yp);
      }
    }
  }
  return KILN_OK;
}

#endif /* KILN_S8_MVE */

#endif /* KILN_DEPTHWISE_CONV_S8_MVE_H */
