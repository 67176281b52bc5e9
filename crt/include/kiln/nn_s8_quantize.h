/*
 * The float -> int8 boundary of a TFLite model (KilnQQuantizeF32 in
 * docs/quantization.md): TFLite's AffineQuantize,
 *   y = clamp(round_half_away_from_zero(x / scale) + zero_point, -128, 127)
 * with the division in float32 (ONNX QuantizeLinear rounds ties to even instead,
 * kiln_quantize_linear_f32). A NaN input gives the zero point.
 * y must not alias x (different element sizes).
 */
#ifndef KILN_NN_S8_QUANTIZE_H
#define KILN_NN_S8_QUANTIZE_H

#include "kiln/kernel_common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  uint32_t size;
  float scale;        /* > 0 and finite (the compiler checks) */
  int32_t zero_point; /* in [-128, 127] */
} kiln_quantize_f32_s8_params_t;

kiln_status_t kiln_quantize_f32_s8(const kiln_quantize_f32_s8_params_t* p, const float* x, int8_t* y);

#ifdef __cplusplus
}
#endif

#endif /* KILN_NN_S8_QUANTIZE_H */
