/*
 * ONNX QLinearConv: the exact int32 ConvInteger accumulator (into `scratch`) plus
 * the int32 bias, then requantized once per output element in double precision:
 * y = saturate(round_half_even(acc * x_scale * w_scale[oc] / y_scale) + y_zp).
 */
#include "kiln/conv.h"
#include "kiln/quant.h"

kiln_status_t kiln_qlinear_conv(const kiln_qlinear_conv_params_t* p, const void* x, const float* x_scale,
                                const void* x_zero_point, const void* w, const float* w_scale,
                                const void* w_zero_point, const float* y_scale, const void* y_zero_point,
                                const int32_t* bias, void* y, void* scratch) {
  const kiln_conv2d_params_t* q;
  const kiln_qtype_t yt = p != NULL && p->y_signed ? KILN_Q_I8 : KILN_Q_U8;
  uint32_t b, oc, i, sp_out;
  double yzp;
  int32_t* acc = (int32_t*)scratch;
  kiln_status_t s;
  if (p == NULL || x_scale == NULL || w_scale == NULL || y_scale == NULL || y == NULL || scratch == NULL)
    return KILN_ERR_NULL_POINTER;
  if (*y_scale == 0.0f) return KILN_ERR_BAD_ARGUMENT;
  s = kiln_conv_integer_s32(&p->conv, x, x_zero_point, w, w_zero_point, acc);
  if (s != KILN_OK) return s;
  q = &p->conv.geom;
  sp_out = q->d_out * q->h_out * q->w_out;
  yzp = y_zero_point != NULL ? (double)kiln_load_q(y_zero_point, 0, yt) : 0.0;
  for (b = 0; b < q->n; ++b) {
    for (oc = 0; oc < q->c_out; ++oc) {
      const double mult = (double)*x_scale * (double)w_scale[p->w_scale_per_channel ? oc : 0u] / (double)*y_scale;
      const int32_t b0 = bias != NULL ? bias[oc] : 0;
      const uint32_t base = (b * q->c_out + oc) * sp_out;
      for (i = 0; i < sp_out; ++i)
        kiln_store_q(y, base + i, kiln_round_half_even((double)(acc[base + i] + b0) * mult) + yzp, yt);
    }
  }
  return KILN_OK;
}
