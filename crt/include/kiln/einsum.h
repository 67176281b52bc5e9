/* Einsum: a sum of products over index letters, worked out at compile time into
 * per-letter extents and per-operand element strides. */
#ifndef KILN_EINSUM_H
#define KILN_EINSUM_H

#include "kiln/kernel_common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KILN_EINSUM_MAX_OPS 4
#define KILN_EINSUM_MAX_LETTERS 16

/* out[o] = sum over the summed letters of prod_k in[k][sum_l idx[l] * stride[k][l]].
 * Letters 0..nout-1 are the output's dims in order (the output is contiguous,
 * row-major); letters nout..nidx-1 are summed. A letter an operand does not use has
 * stride 0; a letter repeated in one operand (a diagonal) has the sum of its strides.
 * `ins` holds `nops` pointers of the kernel's element type. out must not alias an input. */
typedef struct {
  uint32_t nops, nidx, nout;
  uint32_t extent[KILN_EINSUM_MAX_LETTERS];
  int32_t stride[KILN_EINSUM_MAX_OPS][KILN_EINSUM_MAX_LETTERS];
} kiln_einsum_params_t;
kiln_status_t kiln_einsum_f32(const kiln_einsum_params_t* p, const void* const* ins, float* out);
kiln_status_t kiln_einsum_f64(const kiln_einsum_params_t* p, const void* const* ins, double* out);

/* Det: determinants of `batch` square n x n matrices (LU with partial pivoting in
 * double). scratch holds n * n doubles. */
typedef struct {
  uint32_t batch, n;
} kiln_det_params_t;
kiln_status_t kiln_det_f32(const kiln_det_params_t* p, const float* in, float* out, double* scratch);

#ifdef __cplusplus
}
#endif

#endif /* KILN_EINSUM_H */
