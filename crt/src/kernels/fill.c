/* ONNX ConstantOfShape (any dtype): the output is `count` copies of one element. */
#include <string.h>

#include "kiln/indexing.h"

kiln_status_t kiln_fill(const kiln_fill_params_t* p, void* out) {
  uint32_t i;
  uint8_t* dst = (uint8_t*)out;
  if (p == NULL || (out == NULL && p->count > 0u)) return KILN_ERR_NULL_POINTER;
  if (p->elem_size == 0u || p->elem_size > 8u) return KILN_ERR_BAD_ARGUMENT;
  for (i = 0; i < p->count; ++i) memcpy(dst + (size_t)i * p->elem_size, p->value, p->elem_size);
  return KILN_OK;
}
