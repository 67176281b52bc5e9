/*
 * Int8 depthwise Conv2D (NHWC, depth multiplier, strides, dilations, leading pads).
 * Per output pixel the taps inside the input are ranged once; then the channels
 * run in blocks of four with the four accumulators in registers. On the DSP path
 * one word load gives four input channels, SXTAB16 widens them (input offset
 * added) into even/odd halves and SMLABB/SMLATB/SMLABT/SMLATT multiply each with
 * its channel's int16 weight, with no reordering of the weights.
 */
#include "requant_s8.h"

/* The first tap k in [0, kernel) with 0 <= i0 + k * dilation < size, and one past the last. */
static void tap_range(int32_t i0, int32_t dilation, int32_t kernel, int32_t size, int32_t* first, int32_t* end) {
  int32_t k0 = 0, k1 = kernel;
  while (k0 < kernel && i0 + k0 * dilation < 0) ++k0;
  while (k1 > k0 && i0 + (k1 - 1) * dilation >= size) --k1;
  *first = k0;
  *end = k1;
}

kiln_status_t kiln_depthwise_conv2d_s8(const kiln_depthwise_conv2d_s8_params_t* p, const int8_t* x,
                                       const int16_t* w, const int32_t* bias, const kiln_s8_requant_t* rq,
                                       int8_t* y) {
  int32_t b, oy, ox, ky, kx, c;
  kiln_s8_output_t o;
  if (p == NULL || x == NULL || w == NULL || rq == NULL || y == NULL) return KILN_ERR_NULL_POINTER;
  if (p->depth_multiplier <= 0 || p->out_c != p->in_c * p->depth_multiplier || p->kernel_h <= 0 ||
      p->kernel_w <= 0 || p->stride_h <= 0 || p->stride_w <= 0 || p->dilation_h <= 0 || p->dilation_w <= 0)
    return KILN_ERR_BAD_ARGUMENT;
  o.output_offset = p->output_offset;
  o.act_min = p->act_min;
  o.act_max = p->act_max;
  for (b = 0; b < p->batch; ++b) {
    const int8_t* xb = x + (int64_t)b * p->in_h * p->in_w * p->in_c;
    for (oy = 0; oy < p->out_h; ++oy) {
      const int32_t iy0 = oy * p->stride_h - p->pad_top;
      int32_t ky0, ky1;
      tap_range(iy0, p->dilation_h, p->kernel_h, p->in_h, &ky0, &ky1);
      for (ox = 0; ox < p->out_w; ++ox) {
        const int32_t ix0 = ox * p->stride_w - p->pad_left;
        int8_t* yp = y + (((int64_t)b * p->out_h + oy) * p->out_w + ox) * p->out_c;
        int32_t kx0, kx1;
        tap_range(ix0, p->dilation_w, p->kernel_w, p->in_w, &kx0, &kx1);
        c = 0;
        if (p->depth_multiplier == 1) {
#if KILN_S8_DSP
          const uint32_t off2 = ((uint32_t)p->input_offset & 0xFFFFu) | ((uint32_t)p->input_offset << 16);
          for (; c + 4 <= p->out_c; c += 4) {
            int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
            if (bias != NULL) a0 = bias[c], a1 = bias[c + 1], a2 = bias[c + 2], a3 = bias[c + 3];
            for (ky = ky0; ky < ky1; ++ky) {
              const int8_t* xrow = xb + ((int64_t)(iy0 + ky * p->dilation_h) * p->in_w + ix0) * p->in_c + c;
              const int16_t* wrow = w + (int64_t)ky * p->kernel_w * p->out_c + c;
              for (kx = kx0; kx < kx1; ++kx) {
                const uint32_t v = kiln_s8_load32(xrow + (int64_t)kx * p->dilation_w * p->in_c);
                const uint32_t even = __sxtab16(off2, v);        /* x0 x2 */
                const uint32_t odd = __sxtab16(off2, kiln_s8_ror8(v)); /* x1 x3 */
                const int16_t* wp = wrow + (int64_t)kx * p->out_c;
                const uint32_t w01 = kiln_s8_load32(wp), w23 = kiln_s8_load32(wp + 2);
                a0 = __smlabb((int32_t)even, (int32_t)w01, a0);
                a1 = __smlabt((int32_t)odd, (int32_t)w01, a1);
                a2 = __smlatb((int32_t)even, (int32_t)w23, a2);
                a3 = __smlatt((int32_t)odd, (int32_t)w23, a3);
              }
            }
            yp[c] = kiln_s8_output(a0, &rq[c], &o);
            yp[c + 1] = kiln_s8_output(a1, &rq[c + 1], &o);
            yp[c + 2] = kiln_s8_output(a2, &rq[c + 2], &o);
            yp[c + 3] = kiln_s8_output(a3, &rq[c + 3], &o);
          }
#else
          for (; c + 4 <= p->out_c; c += 4) {
            int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
            if (bias != NULL) a0 = bias[c], a1 = bias[c + 1], a2 = bias[c + 2], a3 = bias[c + 3];
            for (ky = ky0; ky < ky1; ++ky) {
              const int8_t* xrow = xb + ((int64_t)(iy0 + ky * p->dilation_h) * p->in_w + ix0) * p->in_c + c;
              const int16_t* wrow = w + (int64_t)ky * p->kernel_w * p->out_c + c;
              for (kx = kx0; kx < kx1; ++kx) {
                const int8_t* xp = xrow + (int64_t)kx * p->dilation_w * p->in_c;
                const int16_t* wp = wrow + (int64_t)kx * p->out_c;
                a0 += (xp[0] + p->input_offset) * wp[0];
                a1 += (xp[1] + p->input_offset) * wp[1];
                a2 += (xp[2] + p->input_offset) * wp[2];
                a3 += (xp[3] + p->input_offset) * wp[3];
              }
            }
            yp[c] = kiln_s8_output(a0, &rq[c], &o);
            yp[c + 1] = kiln_s8_output(a1, &rq[c + 1], &o);
            yp[c + 2] = kiln_s8_output(a2, &rq[c + 2], &o);
            yp[c + 3] = kiln_s8_output(a3, &rq[c + 3], &o);
          }
#endif
        }
        /* Remaining channels, and every channel with a depth multiplier > 1. */
        for (; c < p->out_c; ++c) {
          const int32_t ic = c / p->depth_multiplier;
          int32_t acc = bias != NULL ? bias[c] : 0;
          for (ky = ky0; ky < ky1; ++ky) {
            const int8_t* xrow = xb + ((int64_t)(iy0 + ky * p->dilation_h) * p->in_w + ix0) * p->in_c + ic;
            const int16_t* wrow = w + (int64_t)ky * p->kernel_w * p->out_c + c;
            for (kx = kx0; kx < kx1; ++kx)
              acc += (xrow[(int64_t)kx * p->dilation_w * p->in_c] + p->input_offset) * wrow[(int64_t)kx * p->out_c];
          }
          yp[c] = kiln_s8_output(acc, &rq[c], &o);
        }
      }
    }
  }
  return KILN_OK;
}
