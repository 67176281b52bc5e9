/* ONNX DynamicQuantizeLinear, float32 -> uint8 with a computed scale and zero point:
 * the range [min(x, 0), max(x, 0)] maps onto [0, 255]. */
#include "kiln/quant.h"

kiln_status_t kiln_dynamic_quantize_linear_f32(const kiln_dynamic_quant_params_t* p, const float* x, uint8_t* y,
                                               float* y_scale, uint8_t* y_zero_point) {
  uint32_t i;
  float lo = 0.0f, hi = 0.0f, scale;
  double zp;
  if (p == NULL || x == NULL || y == NULL || y_scale == NULL || y_zero_point == NULL) return KILN_ERR_NULL_POINTER;
  for (i = 0; i < p->size; ++i) {
    lo = x[i] < lo ? x[i] : lo;
    hi = x[i] > hi ? x[i] : hi;
  }
  scale = (hi - lo) / 255.0f;
  /* All-zero input: any scale reproduces it; 0 would divide by zero below. */
  zp = scale != 0.0f ? kiln_round_half_even((double)((0.0f - lo) / scale)) : 0.0;
  kiln_store_q(y_zero_point, 0, zp, KILN_Q_U8);
  zp = (double)*y_zero_point;
  for (i = 0; i < p->size; ++i)
    kiln_store_q(y, i, scale != 0.0f ? kiln_round_half_even((double)(x[i] / scale)) + zp : zp, KILN_Q_U8);
  *y_scale = scale;
  return KILN_OK;
}
