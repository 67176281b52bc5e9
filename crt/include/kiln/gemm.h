/* Matrix products. The output must not alias any input. */
#ifndef KILN_GEMM_H
#define KILN_GEMM_H

#include "kiln/kernel_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * ONNX Gemm: Y[M,N] = alpha * A' * B' + beta * C, where A' is A or A^T
 * (A stored [M,K] or [K,M]) and B' is B or B^T (B stored [K,N] or [N,K]).
 * C (may be NULL) is broadcast to [M,N] with element strides c_stride_m/c_stride_n
 * (0 on a broadcast dimension).
 */
typedef struct {
  uint32_t m, n, k;
  uint8_t trans_a, trans_b;
  float alpha, beta;
  int32_t c_stride_m, c_stride_n;
  /* b_packed: B is constant and packed by the compiler in blocks of four output
   * columns, each [K][4] (column j of Y, reduction index r at 4r + j % 4), the
   * last block padded with zeros; then alpha must be 1, trans_a 0, and C (may be
   * NULL) is one value per column already multiplied by beta (c_stride_m 0,
   * c_stride_n 1): Y[i][j] = C[j] + sum_r A[i][r] * B'[r][j]. */
  uint8_t b_packed;
} kiln_gemm_params_t;
kiln_status_t kiln_gemm_f32(const kiln_gemm_params_t* p, const float* a, const float* b, const float* c, float* y);

/*
 * ONNX MatMul with numpy batch broadcasting: for each batch index, Y[M,N] = A[M,K] * B[K,N].
 * Batch dimensions are described like kiln_broadcast_t (strides in matrices, 0 when
 * broadcast); batch_ndim may be 0.
 */
typedef struct {
  uint32_t m, n, k;
  uint32_t batch_ndim;
  int32_t batch_shape[KILN_MAX_DIMS];
  int32_t a_stride[KILN_MAX_DIMS];
  int32_t b_stride[KILN_MAX_DIMS];
} kiln_matmul_params_t;
kiln_status_t kiln_matmul_f32(const kiln_matmul_params_t* p, const float* a, const float* b, float* y);

#ifdef __cplusplus
}
#endif

#endif /* KILN_GEMM_H */
