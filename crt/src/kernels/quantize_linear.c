/* ONNX QuantizeLinear, float32 -> uint8/int8/int32, per tensor or per axis:
 * y = saturate(round_half_even(x / scale) + zero_point). The division is done in
 * float like the ONNX reference, then rounded exactly. */
#include "kiln/quant.h"

kiln_status_t kiln_quantize_linear_f32(const kiln_quant_params_t* p, const float* x, const float* scale,
                                       const void* zero_point, void* y) {
  uint32_t o, a, i, idx = 0;
  if (p == NULL || x == NULL || scale == NULL || y == NULL) return KILN_ERR_NULL_POINTER;
  for (o = 0; o < p->outer; ++o) {
    for (a = 0; a < p->axis_size; ++a) {
      const uint32_t q = p->per_axis ? a : 0u;
      const float s = scale[q];
      const double zp = zero_point != NULL ? (double)kiln_load_q(zero_point, q, p->qtype) : 0.0;
      for (i = 0; i < p->inner; ++i, ++idx) {
        const float v = x[idx] / s;
        kiln_store_q(y, idx, kiln_round_half_even((double)v) + zp, p->qtype);
      }
    }
  }
  return KILN_OK;
}
