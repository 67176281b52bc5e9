/*
 * Integer (int8) mean of quantized models (KilnQMean in docs/quantization.md),
 * TFLite's reference QuantizedMeanOrSum bit for bit: the sum of (x - x_zero_point)
 * over the reduced elements, rescaled by in_scale / (out_scale * count) with the
 * multiplier TFLite derives for the count (the compiler computes it), plus the
 * output zero point, saturated to int8.
 *
 * The input is viewed as [outer, reduce, inner] (the reduced axes are one
 * contiguous run); the output is [outer, inner]. y must not alias x.
 */
#ifndef KILN_NN_S8_REDUCE_H
#define KILN_NN_S8_REDUCE_H

#include "kiln/kernel_common.h"
#include "kiln/nn_s8_elementwise.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  int32_t outer, reduce, inner;
  int32_t x_offset;        /* -x_zero_point */
  kiln_s8_rescale_t scale; /* the compiler guarantees |sum| * 2^pre_shift < 2^31 */
  int32_t y_offset;        /* y_zero_point */
} kiln_mean_s8_params_t;

kiln_status_t kiln_mean_s8(const kiln_mean_s8_params_t* p, const int8_t* x, int8_t* y);

#ifdef __cplusplus
}
#endif

#endif /* KILN_NN_S8_REDUCE_H */
