/* Data movement: transpose, concat. Outputs must not alias inputs. Element size
 * is a parameter, so one kernel serves every dtype. */
#ifndef KILN_LAYOUT_H
#define KILN_LAYOUT_H

#include "kiln/kernel_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* out[i0..in-1] = in[sum_k i_k * in_stride[k]] over the output shape. Strides may be
 * zero (broadcast: Expand, Tile) or negative (Slice with negative steps; `in` then
 * points at the first element read, not at the start of the tensor). */
typedef struct {
  uint32_t ndim;
  uint32_t elem_size; /* 1, 2, 4 or 8 */
  int32_t shape[KILN_MAX_DIMS];      /* output shape */
  int32_t in_stride[KILN_MAX_DIMS];  /* input element stride per output dimension */
} kiln_transpose_params_t;
kiln_status_t kiln_transpose(const kiln_transpose_params_t* p, const void* in, void* out);

/* Bytes: y[b][j][i] = x[b][i][j] for x [batch, rows, cols] (the NCHW <-> NHWC
 * transpose of an int8 tensor: rows = C, cols = H * W, or the reverse). Word
 * loads and byte permutes, under 3 instructions a byte on a Cortex-M4; kiln_transpose
 * takes this path for every one-byte transpose of that form. */
typedef struct {
  int32_t batch, rows, cols;
} kiln_transpose_s8_params_t;
kiln_status_t kiln_transpose_s8(const kiln_transpose_s8_params_t* p, const int8_t* x, int8_t* y);

/* Concatenation along one axis: the tensors are seen as [outer, axis_i * inner]. */
#define KILN_CONCAT_MAX_INPUTS 64
typedef struct {
  uint32_t num_inputs;
  uint32_t outer;
  uint32_t elem_size;
  uint32_t chunk_bytes[KILN_CONCAT_MAX_INPUTS]; /* axis_i * inner * elem_size */
} kiln_concat_params_t;
kiln_status_t kiln_concat(const kiln_concat_params_t* p, const void* const* inputs, void* out);

#ifdef __cplusplus
}
#endif

#endif /* KILN_LAYOUT_H */
