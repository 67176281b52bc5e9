/* KilnQQuantizeF32 (kiln/nn_s8_quantize.h): TFLite's float -> int8 QUANTIZE,
 * rounding half away from zero (TfLiteRound) after a float32 division. */
#include "kiln/nn_s8_quantize.h"

/* round(v) with ties away from zero, for |v| < 2^23 (the caller saturates larger
 * values first): truncation is exact there, and so is the fraction v - t. */
static int32_t round_half_away(float v) {
  const int32_t t = (int32_t)v;
  const float frac = v - (float)t;
  if (frac >= 0.5f) return t + 1;
  if (frac <= -0.5f) return t - 1;
  return t;
}

kiln_status_t kiln_quantize_f32_s8(const kiln_quantize_f32_s8_params_t* p, const float* x, int8_t* y) {
  uint32_t i;
  if (p == NULL || x == NULL || y == NULL) return KILN_ERR_NULL_POINTER;
  if (!(p->scale > 0.0f) || p->zero_point < -128 || p->zero_point > 127) return KILN_ERR_BAD_ARGUMENT;
  for (i = 0; i < p->size; ++i) {
    const float v = x[i] / p->scale;
    int32_t q;
    if (v != v) {
      q = p->zero_point; /* NaN */
    } else if (v >= 1024.0f) {
      q = 127;
    } else if (v <= -1024.0f) {
      q = -128;
    } else {
      q = round_half_away(v) + p->zero_point;
      q = q < -128 ? -128 : q > 127 ? 127 : q;
    }
    y[i] = (int8_t)q;
  }
  return KILN_OK;
}
