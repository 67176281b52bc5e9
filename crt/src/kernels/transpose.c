/* ONNX Transpose (any dtype), and the strided copy behind Slice, Expand, Tile and
 * Depth/SpaceToDepth: walks the output in order, reading the input through
 * (possibly zero or negative) strides with an odometer (no division per element).
 * A one-byte walk that is a (batched) 2-D transpose is kiln_transpose_s8's word
 * permutes instead (s8/transpose_s8.c). */
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
  if (p->elem_size == 1u && (p->ndim == 2u || p->ndim == 3u)) {
    /* Output [batch,] n, m with input strides [n * m,] 1, n: x [batch, m, n]. */
    const uint32_t o = p->ndim - 2u;
    const int32_t n2 = p->shape[o], m2 = p->shape[o + 1u];
    if (p->in_stride[o] == 1 && p->in_stride[o + 1u] == n2 && n2 > 0 && m2 > 0 &&
        (o == 0u || p->in_stride[0] == n2 * m2)) {
      const kiln_transpose_s8_params_t t = {o == 0u ? 1 : p->shape[0], m2, n2};
      return kiln_transpose_s8(&t, (const int8_t*)in, (int8_t*)out);
    }
  }
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
