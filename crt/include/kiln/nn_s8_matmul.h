/*
 * Integer (int8) batched matrix product of quantized models (KilnQBatchMatMul in
 * docs/quantization.md), TFLite's reference BatchMatMul bit for bit:
 *   y[b,m,n] = clamp(y_zero_point + rescale(sum_k (a[b,m,k] - a_zp) * (b[b,k,n] - b_zp)),
 *                    act_min, act_max)
 * with the factor a_scale * b_scale / y_scale. Both operands may be run-time
 * tensors. Batch dimensions broadcast: the compiler lists, per output batch, the
 * element offset of its a and b matrices (offsets[2*i], offsets[2*i+1]).
 * y must not alias a or b.
 */
#ifndef KILN_NN_S8_MATMUL_H
#define KILN_NN_S8_MATMUL_H

#include "kiln/kernel_common.h"
#include "kiln/nn_s8_elementwise.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  int32_t batches, m, k, n;
  int32_t a_offset, b_offset; /* -a_zero_point, -b_zero_point */
  kiln_s8_rescale_t out;      /* the compiler guarantees |sum| * 2^pre_shift < 2^31 */
  int32_t out_offset;         /* y_zero_point */
  int32_t act_min, act_max;
} kiln_batch_matmul_s8_params_t;

kiln_status_t kiln_batch_matmul_s8(const kiln_batch_matmul_s8_params_t* p, const int8_t* a, const int8_t* b,
                                   const int32_t* offsets, int8_t* y);

#ifdef __cplusplus
}
#endif

#endif /* KILN_NN_S8_MATMUL_H */
