/*
 * Int8 depthwise Conv2D on MVE (s8_mve.h), depth multiplier 1: per output pixel,
 * eight channels at a time in int16 lanes. Per tap, VLDRB widens eight input
 * channels (the input offset added in the lanes), one gather (VLDRH with offsets)
 * reads the eight channels' weights from two of the compiler's blocks of four
 * (nn_s8.h: [Cout/4][KH*KW][4] int16), and VMULLB / VMULLT multiply the even and
 * the odd lanes into two int32x4 accumulators. The even and odd channels are then
 * requantized as two vectors and scattered to the output (byte stride 2). A 3x3
 * window entirely inside the input is unrolled. The channel groups are the outer
 * loop: a group's bias and requantization constants are read once per call, not
 * once per pixel.
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

/* One tap of eight channels: input at xp, weights at wp (with w_off); `full`
 * (a constant: all eight channels live) drops the predication. The empty
 * asm keeps each tap's loads next to its multiplies: GCC otherwise hoists all the
 * loads of an unrolled window and spills the vectors to the stack. */
#define DW_MVE_TAP(xp, wp)                                                                      \
  do {                                                                                          \
    const int16x8_t xv_ = vaddq_n_s16(full ? vldrbq_s16(xp) : vldrbq_z_s16((xp), live), offset); \
    const int16x8_t wv_ =                                                                       \
        full ? vldrhq_gather_offset_s16((wp), w_off) : vldrhq_gather_offset_z_s16((wp), w_off, live); \
    even = vaddq_s32(even, vmullbq_int_s16(xv_, wv_));                                          \
    odd = vaddq_s32(odd, vmulltq_int_s16(xv_, wv_));                                            \
    __asm__ volatile("" : "+w"(even), "+w"(odd) : : "memory");                                  \
  } while (0)

/* The first tap k in [0, kernel) with 0 <= i0 + k * dilation < size, and one past the last. */
static inline void dw_mve_tap_range(int32_t i0, int32_t dilation, int32_t kernel, int32_t size, int32_t* first,
                                    int32_t* end) {
  int32_t k0 = 0, k1 = kernel;
  while (k0 < kernel && i0 + k0 * dilation < 0) ++k0;
  while (k1 > k0 && i0 + (k1 - 1) * dilation >= size) --k1;
  *first = k0;
  *end = k1;
}

/* A channel group's constants, read once per call. */
typedef struct {
  int32x4_t bias_even, bias_odd;
  kiln_s8_mve_rq4_t q_even, q_odd;
  mve_pred16_t live, live_even, live_odd;
  int right_only; /* every channel of the group shifts right (kiln_s8_mve_requant_as) */
} dw_mve_group_t;

/* Channels [c, c + 8) (fewer at the end: g->live) of every output pixel of batch
 * item xb -> yb. wg: the group's weights (its first block). A 3x3 kernel's pixels
 * whose window lies inside the input run the unrolled window with no bounds
 * arithmetic; the others range their in-bounds taps. */
KILN_S8_INLINE void dw_mve_group_as(const kiln_depthwise_conv2d_s8_params_t* p, const int8_t* xb, const int16_t* wg,
                                    const dw_mve_group_t* g, const kiln_s8_mve_output_t* m, uint16x8_t w_off,
                                    int8_t* yb, int full, int right_only) {
  const int32_t in_c = p->in_c, out_c = p->out_c, kernel_w = p->kernel_w;
  const int32_t tap_step = p->dilation_w * in_c, row_step = p->dilation_h * p->in_w * in_c;
  const int16_t offset = (int16_t)p->input_offset;
  const mve_pred16_t live = g->live;
  const int full_kernel = p->kernel_h == 3 && kernel_w == 3;
  /* Output columns [ox_lo, ox_hi) have all kernel_w taps inside the input. */
  int32_t ox_lo = 0, ox_hi = p->out_w;
  int32_t oy, ox, ky, kx;
  int8_t* y = yb;
  while (ox_lo < p->out_w && ox_lo * p->stride_w - p->pad_left < 0) ++ox_lo;
  while (ox_hi > ox_lo && (ox_hi - 1) * p->stride_w - p->pad_left + (kernel_w - 1) * p->dilation_w >= p->in_w) --ox_hi;
  for (oy = 0; oy < p->out_h; ++oy) {
    const int32_t iy0 = oy * p->stride_h - p->pad_top;
    int32_t ky0, ky1;
    dw_mve_tap_range(iy0, p->dilation_h, p->kernel_h, p->in_h, &ky0, &ky1);
    for (ox = 0; ox < p->out_w; ++ox, y += out_c) {
      const int32_t ix0 = ox * p->stride_w - p->pad_left;
      int32x4_t even = g->bias_even, odd = g->bias_odd;
      if (full_kernel && ky1 - ky0 == 3 && ox >= ox_lo && ox < ox_hi) {
        const int8_t* xc = xb + (iy0 * p->in_w + ix0) * in_c;
        const int8_t* x1 = xc + row_step;
        const int8_t* x2 = x1 + row_step;
        const int16_t* wb = wg;
        DW_MVE_TAP(xc, wb); DW_MVE_TAP(xc + tap_step, wb + 4); DW_MVE_TAP(xc + 2 * tap_step, wb + 8);
        DW_MVE_TAP(x1, wb + 12); DW_MVE_TAP(x1 + tap_step, wb + 16); DW_MVE_TAP(x1 + 2 * tap_step, wb + 20);
        DW_MVE_TAP(x2, wb + 24); DW_MVE_TAP(x2 + tap_step, wb + 28); DW_MVE_TAP(x2 + 2 * tap_step, wb + 32);
      } else {
        int32_t kx0 = 0, kx1 = kernel_w;
        if (ox < ox_lo || ox >= ox_hi) dw_mve_tap_range(ix0, p->dilation_w, kernel_w, p->in_w, &kx0, &kx1);
        if (full_kernel && ky1 - ky0 == 3 && kx1 - kx0 == 2) {
          /* A 3x3 window cut by the left or right border: three rows of two taps. */
          const int8_t* xc = xb + (iy0 * p->in_w + ix0 + kx0 * p->dilation_w) * in_c;
          const int8_t* x1 = xc + row_step;
          const int8_t* x2 = x1 + row_step;
          const int16_t* wb = wg + kx0 * 4;
          DW_MVE_TAP(xc, wb); DW_MVE_TAP(xc + tap_step, wb + 4);
          DW_MVE_TAP(x1, wb + 12); DW_MVE_TAP(x1 + tap_step, wb + 16);
          DW_MVE_TAP(x2, wb + 24); DW_MVE_TAP(x2 + tap_step, wb + 28);
        } else if (full_kernel && ky1 - ky0 == 2 && kx1 - kx0 == 3) {
          /* Cut by the top or bottom border: two rows of three taps. */
          const int8_t* xc = xb + ((iy0 + ky0 * p->dilation_h) * p->in_w + ix0) * in_c;
          const int8_t* x1 = xc + row_step;
          const int16_t* wb = wg + ky0 * 12;
          DW_MVE_TAP(xc, wb); DW_MVE_TAP(xc + tap_step, wb + 4); DW_MVE_TAP(xc + 2 * tap_step, wb + 8);
          DW_MVE_TAP(x1, wb + 12); DW_MVE_TAP(x1 + tap_step, wb + 16); DW_MVE_TAP(x1 + 2 * tap_step, wb + 20);
        } else if (ky1 > ky0 && kx1 > kx0) {
          /* A window cut by the border: kernel rows of 3, 2 or any number of taps. */
          const int32_t cols = kx1 - kx0;
          const int8_t* xc = xb + ((iy0 + ky0 * p->dilation_h) * p->in_w + ix0 + kx0 * p->dilation_w) * in_c;
          const int16_t* wb = wg + (ky0 * kernel_w + kx0) * 4;
          for (ky = ky0; ky < ky1; ++ky, xc += row_step, wb += kernel_w * 4) {
            if (cols == 3) {
              DW_MVE_TAP(xc, wb); DW_MVE_TAP(xc + tap_step, wb + 4); DW_MVE_TAP(xc + 2 * tap_step, wb + 8);
            } else if (cols == 2) {
              DW_MVE_TAP(xc, wb); DW_MVE_TAP(xc + tap_step, wb + 4);
            } else {
              const int8_t* xp = xc;
              const int16_t* wp = wb;
              for (kx = 0; kx < cols; ++kx, xp += tap_step, wp += 4) DW_MVE_TAP(xp, wp);
            }
          }
        }
      }
      if (full) {
        kiln_s8_mve_scatter(even, &g->q_even, m, 0xFFFF, y, right_only);
        kiln_s8_mve_scatter(odd, &g->q_odd, m, 0xFFFF, y + 1, right_only);
      } else {
        kiln_s8_mve_scatter(even, &g->q_even, m, g->live_even, y, right_only);
        kiln_s8_mve_scatter(odd, &g->q_odd, m, g->live_odd, y + 1, right_only);
      }
    }
  }
}

/* dw_mve_group_as for a full group of eight channels (its channels all shifting
 * right, or not) or a partial one. */
static __attribute__((noinline)) void dw_mve_group(const kiln_depthwise_conv2d_s8_params_t* p, const int8_t* xb,
                                                   const int16_t* wg, const dw_mve_group_t* g,
                                                   const kiln_s8_mve_output_t* m, uint16x8_t w_off, int8_t* yb) {
  if (g->live == 0xFFFF && g->right_only)
    dw_mve_group_as(p, xb, wg, g, m, w_off, yb, 1, 1);
  else if (g->live == 0xFFFF)
    dw_mve_group_as(p, xb, wg, g, m, w_off, yb, 1, 0);
  else
    dw_mve_group_as(p, xb, wg, g, m, w_off, yb, 0, 0);
}
#undef DW_MVE_TAP

/* kiln_depthwise_conv2d_s8 on MVE for parameters kiln_depthwise_s8_mve_ok takes,
 * called after the public function checked the arguments. */
static kiln_status_t kiln_depthwise_conv2d_s8_mve(const kiln_depthwise_conv2d_s8_params_t* p, const int8_t* x,
                                                  const int16_t* w, const int32_t* bias, const kiln_s8_requant_t* rq,
                                                  int8_t* y) {
  const int32_t taps = p->kernel_h * p->kernel_w;
  /* Lanes 0..3 from the block of channels c..c+3, lanes 4..7 from the next block. */
  const uint16x8_t w_off = vaddq_u16(vidupq_n_u16(0, 2),
                                     vdupq_m_n_u16(vdupq_n_u16(0), (uint16_t)(taps * 8 - 8), vctp16q(8) & ~vctp16q(4)));
  const uint32x4_t even_lanes = vidupq_n_u32(0, 2);
  int32_t b, c;
  kiln_s8_mve_output_t m;
  kiln_s8_mve_output_init(&m, p->output_offset, p->act_min, p->act_max, 2);
  for (c = 0; c < p->out_c; c += 8) {
    const int32_t n = p->out_c - c < 8 ? p->out_c - c : 8;
    dw_mve_group_t g;
    g.live = vctp16q((uint32_t)n);
    g.live_even = vctp32q((uint32_t)(n + 1) / 2);
    g.live_odd = vctp32q((uint32_t)n / 2);
    g.bias_even = vdupq_n_s32(0);
    g.bias_odd = vdupq_n_s32(0);
    if (bias != NULL) {
      g.bias_even = vldrwq_gather_shifted_offset_z_s32(bias + c, even_lanes, g.live_even);
      g.bias_odd = vldrwq_gather_shifted_offset_z_s32(bias + c + 1, even_lanes, g.live_odd);
    }
    g.right_only = kiln_s8_mve_right_only(rq + c, n);
    g.q_even = kiln_s8_mve_rq4(rq + c, &m, g.live_even);
    /* (n == 1: no odd lane is live and rq + c + 1 is not read.) */
    g.q_odd = kiln_s8_mve_rq4(rq + c + 1, &m, g.live_odd);
    for (b = 0; b < p->batch; ++b)
      dw_mve_group(p, x + (int64_t)b * p->in_h * p->in_w * p->in_c + c, w + (int64_t)(c / 4) * taps * 4, &g, &m,
                   w_off, y + (int64_t)b * p->out_h * p->out_w * p->out_c + c);
  }
  return KILN_OK;
}

#endif /* KILN_S8_MVE */

#endif /* KILN_DEPTHWISE_CONV_S8_MVE_H */
