/*
 * What the int8-weight kernels (conv_s8_w8.c, fully_connected_s8_w8.c; layout in
 * nn_s8.h) share on the portable path: a row's dot product with a column of raw
 * int8 values and the addition of the compiler's kernel bias.
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

/* kernel_bias + sum with int32 wrap-around: the exact accumulator whenever it
 * fits in int32 (the compiler bounds it), without signed overflow in C. */
static inline int32_t kiln_s8_w8_acc(int32_t kernel_bias, int32_t sum) {
  const uint32_t u = (uint32_t)kernel_bias + (uint32_t)sum;
  return u <= 0x7FFFFFFFu ? (int32_t)u : -(int32_t)(~u) - 1;
}

#endif /* KILN_S8_W8_H */
