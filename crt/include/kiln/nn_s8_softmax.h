/*
 * Integer (int8) softmax of quantized models (KilnQSoftmax in docs/quantization.md)
 * over the last axis, bit-exact with TFLite's reference kernel: output scale 1/256,
 * zero point -128.
 *
 * TFLite evaluates exp(beta * x_scale * (x - max)) in gemmlowp fixed point (Q5.26
 * input, Q0.31 result) for every element. The difference x - max of int8 values
 * only takes the 256 values [-255, 0], so the compiler evaluates that function once
 * per difference (exp_table, 0 where TFLite skips the element: below diff_min); the
 * kernel sums the row in Q12.19, takes TFLite's fixed-point reciprocal
 * (one_over_one_plus_x_for_x_in_0_1) and rescales, all in integers.
 *
 * y may be x (each row is read completely before any of it is written, and then
 * element c is read before y[c] is written).
 */
#ifndef KILN_NN_S8_SOFTMAX_H
#define KILN_NN_S8_SOFTMAX_H

#include "kiln/kernel_common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  int32_t rows;  /* product of the leading dimensions */
  int32_t depth; /* the last dimension, 1..4095 (the Q12.19 sum cannot overflow) */
  int32_t exp_table[256]; /* exp of difference d at [d + 255], Q0.31, in [0, 2^31) */
} kiln_softmax_s8_params_t;

kiln_status_t kiln_softmax_s8(const kiln_softmax_s8_params_t* p, const int8_t* x, int8_t* y);

#ifdef __cplusplus
}
#endif

#endif /* KILN_NN_S8_SOFTMAX_H */
