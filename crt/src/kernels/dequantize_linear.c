/* ONNX DequantizeLinear, uint8/int8/int32 -> float32, per tensor or per axis:
 * y = (x - zero_point) * scale. The difference is exact in int32 (int64 for int32
 * inputs, whose difference may overflow int32). */
#include "kiln/quant.h"

kiln_status_t kiln_dequantize_linear_f32(const kiln_quant_params_t* p, const void* x, const float* scale,
                                         const void* zero_point, float* y) {
  uint32_t o, a, i, idx = 0;
  if (p == NULL || x == NULL || scale == NULL || y == NULL) return KILN_ERR_NULL_POINTER;
  for (o = 0; o < p->outer; ++o) {
    for (a = 0; a < p->axis_size; ++a) {
      const uint32_t q = p->per_axis ? a : 0u;
      const float s = scale[q];
      const int64_t zp = zero_point != NULL ? (int64_t)kiln_load_q(zero_point, q, p->qtype) : 0;
      for (i = 0; i < p->inner; ++i, ++idx) y[idx] = (float)((int64_t)kiln_load_q(x, idx, p->qtype) - zp) * s;
    }
  }
  return KILN_OK;
}
