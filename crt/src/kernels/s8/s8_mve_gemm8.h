/*
 * The int8-weight GEMM core on MVE (s8_mve.h; layout in nn_s8.h,
 * kiln_conv2d_s8_w8): for each block of four output channels, the dot products of
 * its four int8 weight rows with one or two int8 columns, 16 taps per step
 * (VMLADAVA.S8: 16 products into a row's int32 sum per instruction), then the
 * kernel bias and the requantization of four channels per vector. Two columns x
 * four rows per step: 4 + 2 VLDRB and 8 VMLADAVA for 128 multiply-accumulates.
 */
#ifndef KILN_S8_MVE_GEMM8_H
#define KILN_S8_MVE_GEMM8_H

#include "s8_mve.h"
#include "s8_mve_2x4.h"

#if KILN_S8_MVE

/* One block of four channels (weights at wb, kernel bias, rq, outputs y0 / y1)
 * for two columns c0, c1 of row_len8 int8 (a multiple of 16); `live` its
 * channels (a constant 0xFFFF for full blocks). One asm block: the 16-tap loop,
 * then the eight sums moved into two vectors. */
KILN_S8_INLINE void kiln_s8_mve_block8_2x4(const int8_t* c0, const int8_t* c1, const int8_t* c0_end, const int8_t* wb,
                                           const int32_t* kernel_bias, const kiln_s8_requant_t* rq,
                                           const kiln_s8_mve_output_t* m, int8_t* y0, int8_t* y1, mve_pred16_t live,
                                           int right_only) {
  KILN_S8_MVE_2X4_REGISTERS(int8_t, c0, c1, wb, c0_end); /* pinned: see s8_mve_2x4.h */
  int32x4_t s0, s1, b;
  kiln_s8_mve_rq4_t q;
  __asm__(KILN_S8_MVE_2X4_ZERO
          "1:\n\t"
          "vldrb.8 q0, [%[w]], #16\n\t"
          "vldrb.8 q1, [%[w]], #16\n\t"
          "vldrb.8 q2, [%[w]], #16\n\t"
          "vldrb.8 q3, [%[w]], #16\n\t"
          "vldrb.8 q4, [%[c0]], #16\n\t"
          "vldrb.8 q5, [%[c1]], #16\n\t"
          KILN_S8_MVE_2X4_MLA("s8") KILN_S8_MVE_2X4_TO_VECTORS
              KILN_S8_MVE_2X4_OPERANDS(s0, s1));
  b = KILN_S8_MVE_ALL(live) ? vld1q_s32(kernel_bias) : vldrwq_z_s32(kernel_bias, live);
  q = kiln_s8_mve_rq4_as(rq, m, live, right_only);
  kiln_s8_mve_store_as(vaddq_s32(s0, b), &q, m, live, y0, right_only);
  kiln_s8_mve_store_as(vaddq_s32(s1, b), &q, m, live, y1, right_only);
}

/* As kiln_s8_mve_block8_2x4 for one column. */
KILN_S8_INLINE void kiln_s8_mve_block8_1x4(const int8_t* c0, int32_t row_len8, const int8_t* wb,
                                           const int32_t* kernel_bias, const kiln_s8_requant_t* rq,
                                           const kiln_s8_mve_output_t* m, int8_t* y0, mve_pred16_t live,
                                           int right_only) {
  int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, k;
  int32x4_t s, b;
  kiln_s8_mve_rq4_t q;
  for (k = 0; k < row_len8; k += 16, wb += 64) {
    const int8x16_t xv = vldrbq_s8(c0 + k);
    a0 = vmladavaq_s8(a0, xv, vldrbq_s8(wb));
    a1 = vmladavaq_s8(a1, xv, vldrbq_s8(wb + 16));
    a2 = vmladavaq_s8(a2, xv, vldrbq_s8(wb + 32));
    a3 = vmladavaq_s8(a3, xv, vldrbq_s8(wb + 48));
  }
  s = vsetq_lane_s32(a3, vsetq_lane_s32(a2, vsetq_lane_s32(a1, vdupq_n_s32(a0), 1), 2), 3);
  b = KILN_S8_MVE_ALL(live) ? vld1q_s32(kernel_bias) : vldrwq_z_s32(kernel_bias, live);
  q = kiln_s8_mve_rq4_as(rq, m, live, right_only);
  kiln_s8_mve_store_as(vaddq_s32(s, b), &q, m, live, y0, right_only);
}

/* kiln_s8_mve_gemm8 with `right_only` (m->right_only) a constant. */
KILN_S8_INLINE void kiln_s8_mve_gemm8_as(const int8_t* c0, const int8_t* c1, int32_t row_len8, const int8_t* w,
                                         const int32_t* kernel_bias, const kiln_s8_requant_t* rq, int32_t n_out,
                                         const kiln_s8_mve_output_t* m, int8_t* y0, int8_t* y1, int right_only) {
  int32_t oc;
  if (y1 != NULL) {
    const int8_t* c0_end = c0 + row_len8;
    for (oc = 0; oc + 4 <= n_out; oc += 4)
      kiln_s8_mve_block8_2x4(c0, c1, c0_end, w + oc * row_len8, kernel_bias + oc, rq + oc, m, y0 + oc, y1 + oc,
                             0xFFFF, right_only);
    if (oc < n_out)
      kiln_s8_mve_block8_2x4(c0, c1, c0_end, w + oc * row_len8, kernel_bias + oc, rq + oc, m, y0 + oc, y1 + oc,
                             vctp32q((uint32_t)(n_out - oc)), right_only);
  } else {
    for (oc = 0; oc + 4 <= n_out; oc += 4)
      kiln_s8_mve_block8_1x4(c0, row_len8, w + oc * row_len8, kernel_bias + oc, rq + oc, m, y0 + oc, 0xFFFF,
                             right_only);
    if (oc < n_out)
      kiln_s8_mve_block8_1x4(c0, row_len8, w + oc * row_len8, kernel_bias + oc, rq + oc, m, y0 + oc,
                             vctp32q((uint32_t)(n_out - oc)), right_only);
  }
}

/*
 * n_out output channels (weights in blocks of four rows of row_len8 int8, kernel
 * bias and rq of those channels) for column c0 and, when y1 != NULL, column c1;
 * outputs to y0[0..n_out) and y1[0..n_out). Out of line: the two-column asm takes
 * twelve core registers. Channels that all shift right skip the left shift.
 */
static __attribute__((noinline)) void kiln_s8_mve_gemm8(const int8_t* c0, const int8_t* c1, int32_t row_len8,
                                                        const int8_t* w, const int32_t* kernel_bias,
                                                        const kiln_s8_requant_t* rq, int32_t n_out,
                                                        const kiln_s8_mve_output_t* m, int8_t* y0, int8_t* y1) {
  if (m->right_only)
    kiln_s8_mve_gemm8_as(c0, c1, row_len8, w, kernel_bias, rq, n_out, m, y0, y1, 1);
  else
    kiln_s8_mve_gemm8_as(c0, c1, row_len8, w, kernel_bias, rq, n_out, m, y0, y1, 0);
}

#endif /* KILN_S8_MVE */

#endif /* KILN_S8_MVE_GEMM8_H */
