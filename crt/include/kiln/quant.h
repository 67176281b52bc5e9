/* Quantization: QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear,
 * MatMulInteger, QLinearMatMul (QLinearConv / ConvInteger are in kiln/conv.h).
 * Outputs must not alias inputs. */
#ifndef KILN_QUANT_H
#define KILN_QUANT_H

#include <math.h>

#include "kiln/kernel_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Quantized element types a quantization kernel reads or writes. */
typedef enum {
  KILN_Q_U8 = 0,
  KILN_Q_I8 = 1,
  KILN_Q_I32 = 2
} kiln_qtype_t;

/* Rounds to the nearest integer, ties to even (ONNX's rounding for quantization),
 * independent of the FPU rounding mode. */
static inline double kiln_round_half_even(double v) {
  double r = floor(v);
  const double diff = v - r;
  if (diff > 0.5 || (diff == 0.5 && fmod(r, 2.0) != 0.0)) r += 1.0;
  return r;
}

/* Saturates `v` (already rounded) to the range of `t` and stores it at out[i]. */
static inline void kiln_store_q(void* out, uint32_t i, double v, kiln_qtype_t t) {
  const double lo = t == KILN_Q_U8 ? 0.0 : t == KILN_Q_I8 ? -128.0 : -2147483648.0;
  const double hi = t == KILN_Q_U8 ? 255.0 : t == KILN_Q_I8 ? 127.0 : 2147483647.0;
  if (v != v) v = 0.0; /* NaN: no defined value; keep the conversion defined */
  v = v < lo ? lo : v > hi ? hi : v;
  if (t == KILN_Q_U8)
    ((uint8_t*)out)[i] = (uint8_t)v;
  else if (t == KILN_Q_I8)
    ((int8_t*)out)[i] = (int8_t)v;
  else
    ((int32_t*)out)[i] = (int32_t)v;
}

/* Element i of a quantized buffer as int32. */
static inline int32_t kiln_load_q(const void* in, uint32_t i, kiln_qtype_t t) {
  return t == KILN_Q_U8 ? (int32_t)((const uint8_t*)in)[i]
         : t == KILN_Q_I8 ? (int32_t)((const int8_t*)in)[i]
                          : ((const int32_t*)in)[i];
}

/*
 * Per-tensor or per-axis quantization layout: the tensor is [outer, axis_size, inner];
 * scale / zero point have `axis_size` values when per_axis, else one.
 */
typedef struct {
  uint32_t outer, axis_size, inner;
  uint8_t per_axis;
  kiln_qtype_t qtype; /* type of the quantized side */
} kiln_quant_params_t;

/* y = saturate(round_half_even(x / scale) + zero_point); zero_point may be NULL (0). */
kiln_status_t kiln_quantize_linear_f32(const kiln_quant_params_t* p, const float* x, const float* scale,
                                       const void* zero_point, void* y);
/* y = (x - zero_point) * scale; zero_point may be NULL (0). */
kiln_status_t kiln_dequantize_linear_f32(const kiln_quant_params_t* p, const void* x, const float* scale,
                                         const void* zero_point, float* y);

/* DynamicQuantizeLinear to uint8: scale = (max(x, 0) - min(x, 0)) / 255,
 * zero_point = saturate(round(-min / scale)), y = saturate(round(x / scale) + zero_point). */
typedef struct {
  uint32_t size;
} kiln_dynamic_quant_params_t;
kiln_status_t kiln_dynamic_quantize_linear_f32(const kiln_dynamic_quant_params_t* p, const float* x, uint8_t* y,
                                               float* y_scale, uint8_t* y_zero_point);

/*
 * MatMulInteger with numpy batch broadcasting (batch described like
 * kiln_matmul_params_t): Y[M,N] = sum_k (A[m,k] - a_zp) * (B[k,n] - b_zp), int32.
 * a_zero_point has one value or one per row M (a_zp_per_row); b_zero_point one
 * value or one per column N (b_zp_per_col). NULL zero points are 0.
 */
typedef struct {
  uint32_t m, n, k;
  uint32_t batch_ndim;
  int32_t batch_shape[KILN_MAX_DIMS];
  int32_t a_stride[KILN_MAX_DIMS];
  int32_t b_stride[KILN_MAX_DIMS];
  kiln_qtype_t a_type, b_type;
  uint8_t a_zp_per_row, b_zp_per_col;
} kiln_matmul_integer_params_t;
kiln_status_t kiln_matmul_integer_s32(const kiln_matmul_integer_params_t* p, const void* a, const void* a_zero_point,
                                      const void* b, const void* b_zero_point, int32_t* y);

/*
 * QLinearMatMul: the MatMulInteger accumulator requantized,
 * y = saturate(round_half_even(acc * a_scale * b_scale / y_scale) + y_zero_point).
 * Scales / zero points follow the same per-row (a) / per-column (b) rule.
 * `scratch` holds one int32 per output element.
 */
typedef struct {
  kiln_matmul_integer_params_t mm;
  uint8_t a_scale_per_row, b_scale_per_col;
  kiln_qtype_t y_type;
  uint32_t batches;
} kiln_qlinear_matmul_params_t;
kiln_status_t kiln_qlinear_matmul(const kiln_qlinear_matmul_params_t* p, const void* a, const float* a_scale,
                                  const void* a_zero_point, const void* b, const float* b_scale,
                                  const void* b_zero_point, const float* y_scale, const void* y_zero_point, void* y,
                                  void* scratch);

#ifdef __cplusplus
}
#endif

#endif /* KILN_QUANT_H */
