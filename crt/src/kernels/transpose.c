/* ONNX Transpose (any dtype), and the strided copy behind Slice, Expand, Tile and
 * Depth/SpaceToDepth: walks the output in order, reading the input through
 * (possibly zero or negative) strides with an odometer (no division per element). */
#include <stddef.h>
#include <string.h>

#include "kiln/layout.h"

kiln_status_t kiln_transpose(const kiln_transpose_params_t* p, const void* in, void* out) {
  int32_t idx[KILN_MAX_DIMS] = {0};
  uint32_t d, last, outer = 1;
  int32_t i, n, s, off = 0;
  const uint8_t* src = (const uint8_t*)in;
  uint8_t* dst = (uint8_t*)out;
  if (p == NULL || in == NULL || out == NULL) return KILN_ERR_NULL_POINTER;
  if (p->ndim < 1u || p->ndim > KILN_MAX_DIMS) return KILN_ERR_BAD_ARGUMENT;
  if (p->elem_size != 1u && p->elem_size != 2u && p->elem_size != 4u && p->elem_size != 8u) return KILN_ERR_BAD_ARGUMENT;
  last = p->ndim - 1u;
  n = p->shape[last];
  s = p->in_stride[last];
  for (d = 0; d < last; ++d) outer *= (uint32_t)p->shape[d];
  if (n <= 0) return KILN_OK;
  for (; outer > 0u; --outer) {
    for (i = 0; i < n; ++i) {
      memcpy(dst, src + (ptrdiff_t)(off + i * s) * (ptrdiff_t)p->elem_size, p->elem_size);
      dst += p->elem_size;
    }
    for (d = last; d-- > 0u;) {
      off += p->in_stride[d];
      if (++idx[d] < p->shape[d]) break;
      off -= p->in_stride[d] * p->shape[d];
      idx[d] = 0;
    }
  }
  return KILN_OK;
}
