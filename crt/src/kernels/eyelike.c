/* ONNX EyeLike: zeros with ones on the k-th diagonal, any dtype (raw elements). */
#include <string.h>

#include "kiln/misc.h"

kiln_status_t kiln_eyelike(const kiln_eyelike_params_t* p, void* out) {
  uint32_t r;
  uint8_t* dst = (uint8_t*)out;
  if (p == NULL) return KILN_ERR_NULL_POINTER;
  if (p->elem_size == 0u || p->elem_size > 8u) return KILN_ERR_BAD_ARGUMENT;
  if ((size_t)p->rows * p->cols == 0u) return KILN_OK;
  if (out == NULL) return KILN_ERR_NULL_POINTER;
  memset(dst, 0, (size_t)p->rows * p->cols * p->elem_size);
  for (r = 0; r < p->rows; ++r) {
    const int64_t c = (int64_t)r + (int64_t)p->k;
    if (c < 0 || c >= (int64_t)p->cols) continue;
    memcpy(dst + ((size_t)r * p->cols + (size_t)c) * p->elem_size, p->one, p->elem_size);
  }
  return KILN_OK;
}
