/* ONNX QLinearMatMul: the exact MatMulInteger accumulator (into `scratch`),
 * requantized in double precision:
 * y = saturate(round_half_even(acc * a_scale * b_scale / y_scale) + y_zp). */
#include "kiln/quant.h"

kiln_status_t kiln_qlinear_matmul(const kiln_qlinear_matmul_params_t* p, const void* a, const float* a_scale,
                                  const void* a_zero_point, const void* b, const float* b_scale,
                                  const void* b_zero_point, const float* y_scale, const void* y_zero_point, void* y,
                                  void* scratch) {
  int32_t* acc = (int32_t*)scratch;
  uint32_t t, i, j, o = 0;
  double yzp;
  kiln_status_t s;
  if (p == NULL || a_scale == NULL || b_scale == NULL || y_scale == NULL || y == NULL || scratch == NULL)
    return KILN_ERR_NULL_POINTER;
  if (*y_scale == 0.0f) return KILN_ERR_BAD_ARGUMENT;
  s = kiln_matmul_integer_s32(&p->mm, a, a_zero_point, b, b_zero_point, acc);
  if (s != KILN_OK) return s;
  yzp = y_zero_point != NULL ? (double)kiln_load_q(y_zero_point, 0, p->y_type) : 0.0;
  for (t = 0; t < p->batches; ++t)
    for (i = 0; i < p->mm.m; ++i)
      for (j = 0; j < p->mm.n; ++j, ++o) {
        const double mult = (double)a_scale[p->a_scale_per_row ? i : 0u] *
                            (double)b_scale[p->b_scale_per_col ? j : 0u] / (double)*y_scale;
        kiln_store_q(y, o, kiln_round_half_even((double)acc[o] * mult) + yzp, p->y_type);
      }
  return KILN_OK;
}
