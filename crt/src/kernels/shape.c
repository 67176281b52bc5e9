/* ONNX Shape and Size (int64 output) for graphs where folding did not replace
 * them: the values are known at compile time and come in the params. */
#include "kiln/elementwise.h"

kiln_status_t kiln_shape_i64(const kiln_shape_params_t* p, int64_t* out) {
  uint32_t i;
  if (p == NULL) return KILN_ERR_NULL_POINTER;
  if (p->n > KILN_MAX_DIMS) return KILN_ERR_BAD_ARGUMENT;
  if (out == NULL) return p->n == 0u ? KILN_OK : KILN_ERR_NULL_POINTER;
  for (i = 0; i < p->n; ++i) out[i] = p->values[i];
  return KILN_OK;
}
