/*
 * Integer (int8) average and max pooling of quantized models (KilnQAvgPool2D,
 * KilnQMaxPool2D in docs/quantization.md), NHWC, bit-exact with TFLite's
 * reference integer kernels:
 *   average: sum of the taps inside the input (padding is not counted), divided by
 *            their number rounding half away from zero, then clamped to
 *            [act_min, act_max];
 *   max:     the largest tap inside the input (-128 when there is none), clamped.
 * Input and output share scale and zero point, so no requantization happens.
 *
 * The instruction-set path is chosen when the library is compiled: portable C or
 * the Arm DSP extension (__ARM_FEATURE_DSP: four channels per 32-bit word, SXTAB16
 * for sums and SSUB8/SEL for maxima; define KILN_S8_PORTABLE to force the portable
 * path). Both give identical results. The output must not alias the input.
 */
#ifndef KILN_NN_S8_POOL_H
#define KILN_NN_S8_POOL_H

#include "kiln/kernel_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * x [batch, in_h, in_w, channels] -> y [batch, out_h, out_w, channels]. Output
 * pixel (oy, ox) reads input rows oy * stride_h - pad_top + [0, kernel_h) and columns
 * ox * stride_w - pad_left + [0, kernel_w), clipped to the input; the trailing pads
 * follow from out_h / out_w. The average pool needs at least one input tap in every
 * window (the compiler checks) and at most 2^23 taps per window.
 */
typedef struct {
  int32_t batch, in_h, in_w, channels;
  int32_t out_h, out_w;
  int32_t kernel_h, kernel_w;
  int32_t stride_h, stride_w;
  int32_t pad_top, pad_left;
  int32_t act_min, act_max;
} kiln_pool2d_s8_params_t;

kiln_status_t kiln_avgpool2d_s8(const kiln_pool2d_s8_params_t* p, const int8_t* x, int8_t* y);
kiln_status_t kiln_maxpool2d_s8(const kiln_pool2d_s8_params_t* p, const int8_t* x, int8_t* y);

#ifdef __cplusplus
}
#endif

#endif /* KILN_NN_S8_POOL_H */
