/* ONNX NonZero: the coordinates of the non-zero elements, [ndim, count], in
 * row-major order. A first pass counts them; the output is written only when the
 * count is the planned one. */
#include "kiln/selection.h"
#include "selection_elem.h"

kiln_status_t kiln_nonzero(const kiln_nonzero_params_t* p, const void* x, int64_t* out) {
  uint32_t idx[KILN_MAX_DIMS];
  size_t total = 1, i, nnz = 0, j = 0;
  uint32_t d;
  if (p == NULL) return KILN_ERR_NULL_POINTER;
  if (p->ndim > KILN_MAX_DIMS || kiln_sel_size(p->elem_type) == 0u) return KILN_ERR_BAD_ARGUMENT;
  for (d = 0; d < p->ndim; ++d) total *= p->shape[d];
  if (x == NULL && total > 0u) return KILN_ERR_NULL_POINTER;
  for (i = 0; i < total; ++i) nnz += (size_t)kiln_sel_nonzero(x, p->elem_type, i);
  if (nnz != (size_t)p->count) return KILN_ERR_BAD_ARGUMENT;
  if (nnz == 0u || p->ndim == 0u) return KILN_OK;
  if (out == NULL) return KILN_ERR_NULL_POINTER;
  for (d = 0; d < p->ndim; ++d) idx[d] = 0u;
  for (i = 0; i < total; ++i) {
    if (kiln_sel_nonzero(x, p->elem_type, i)) {
      for (d = 0; d < p->ndim; ++d) out[(size_t)d * nnz + j] = (int64_t)idx[d];
      ++j;
    }
    /* Next row-major coordinate. */
    for (d = p->ndim; d-- > 0u;) {
      if (++idx[d] < p->shape[d]) break;
      idx[d] = 0u;
    }
  }
  return KILN_OK;
}
