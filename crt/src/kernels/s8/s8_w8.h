/*
 * What the int8-weight kernels (conv_s8_w8.c, fully_connected_s8_w8.c; layout in
 * nn_s8.h) share on the portable path: a row's dot product with a column of raw
 * int8 values and the addition of the compiler's kernel bias; on the DSP extension
 * the four rows of a block at once (SXTB16 + SMLAD, the compact form of a target
 * without MVE: docs/performance.md, "Flash as a budget").
 */
#ifndef KILN_S8_W8_H
#define KILN_S8_W8_H

#include "requant_s8.h"

/* Row r of the block at wblock (16-tap chunks of four rows) . col over `taps`. */
static inline int32_t kiln_s8_w8_dot(const int8_t* wblock, int32_t r, const int8_t* col, int32_t taps) {
  int32_t k, sum = 0;
  for (k = 0; k < taps; ++k) sum += col[k] * wblock[(k / 16) * 64 + r * 16 + k % 16];
  return sum;
}

#if KILN_S8_DSP
/* The four rows of the block at wblock . col over `taps`, into sum[0..3], on the DSP
 * extension: a word of four int8 taps is split into its even and odd lanes
 * sign-extended to int16 (SXTB16, and SXTB16 of the word rotated by 8), and
 * SMLAD multiplies and adds both lanes; the column's word is loaded and split once
 * for the four rows. The compiler bounds the accumulator (it fits in int32), so
 * SMLAD's additions never overflow. Taps past the last whole word one at a time
 * (a fully connected layer's input row is not padded). */
static inline void kiln_s8_w8_dot4(const int8_t* wblock, const int8_t* col, int32_t taps, int32_t sum[4]) {
  int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0, k;
  for (k = 0; k + 4 <= taps; k += 4) {
    const int8_t* wk = wblock + (k >> 4) * 64 + (k & 15);
    const uint32_t x = kiln_s8_load4(col + k);
    const int16x2_t xe = __sxtb16((int8x4_t)x), xo = __sxtb16((int8x4_t)kiln_s8_ror8(x));
    uint32_t w = kiln_s8_load4(wk);
    s0 = __smlad(__sxtb16((int8x4_t)w), xe, s0);
    s0 = __smlad(__sxtb16((int8x4_t)kiln_s8_ror8(w)), xo, s0);
    w = kiln_s8_load4(wk + 16);
    s1 = __smlad(__sxtb16((int8x4_t)w), xe, s1);
    s1 = __smlad(__sxtb16((int8x4_t)kiln_s8_ror8(w)), xo, s1);
    w = kiln_s8_load4(wk + 32);
    s2 = __smlad(__sxtb16((int8x4_t)w), xe, s2);
    s2 = __smlad(__sxtb16((int8x4_t)kiln_s8_ror8(w)), xo, s2);
    w = kiln_s8_load4(wk + 48);
    s3 = __smlad(__sxtb16((int8x4_t)w), xe, s3);
    s3 = __smlad(__sxtb16((int8x4_t)kiln_s8_ror8(w)), xo, s3);
  }
  for (; k < taps; ++k) {
    const int8_t* wk = wblock + (k >> 4) * 64 + (k & 15);
    const int32_t xv = col[k];
    s0 += xv * wk[0], s1 += xv * wk[16], s2 += xv * wk[32], s3 += xv * wk[48];
  }
  sum[0] = s0, sum[1] = s1, sum[2] = s2, sum[3] = s3;
}
#endif

/* kernel_bias + sum with int32 wrap-around: the exact accumulator whenever it
 * fits in int32 (the compiler bounds it), without signed overflow in C. */
static inline int32_t kiln_s8_w8_acc(int32_t kernel_bias, int32_t sum) {
  const uint32_t u = (uint32_t)kernel_bias + (uint32_t)sum;
  return u <= 0x7FFFFFFFu ? (int32_t)u : -(int32_t)(~u) - 1;
}

#endif /* KILN_S8_W8_H */
