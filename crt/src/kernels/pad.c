/* ONNX Pad (any dtype): constant, reflect and edge modes; negative pads crop.
 * Walks the output in order; each output coordinate maps back to an input
 * coordinate per dimension (or to the constant value). */
#include <string.h>

#include "kiln/indexing.h"

/* Maps output coordinate `o` of a dimension to an input coordinate; -1 = constant. */
static int32_t pad_source(int32_t o, int32_t begin, int32_t n, uint32_t mode) {
  int32_t i = o - begin;
  if (i >= 0 && i < n) return i;
  if (mode == KILN_PAD_EDGE) return i < 0 ? 0 : n - 1;
  if (mode == KILN_PAD_REFLECT) {
    if (n == 1) return 0;
    while (i < 0 || i >= n) {
      if (i < 0) i = -i;
      if (i >= n) i = 2 * (n - 1) - i;
    }
    return i;
  }
  return -1;
}

kiln_status_t kiln_pad(const kiln_pad_params_t* p, const void* data, const int64_t* pads_ptr, const void* value_ptr,
                       void* out) {
  int32_t pads[2 * KILN_MAX_DIMS], in_stride[KILN_MAX_DIMS], idx[KILN_MAX_DIMS] = {0};
  uint32_t d, count = 1u, e;
  int32_t s = 1;
  const uint8_t* src = (const uint8_t*)data;
  const uint8_t* value;
  uint8_t* dst = (uint8_t*)out;
  if (p == NULL || data == NULL || out == NULL) return KILN_ERR_NULL_POINTER;
  if (p->ndim < 1u || p->ndim > KILN_MAX_DIMS || p->elem_size == 0u || p->elem_size > 8u || p->mode > 2u)
    return KILN_ERR_BAD_ARGUMENT;
  value = value_ptr != NULL ? (const uint8_t*)value_ptr : p->value;
  for (d = 0; d < 2u * p->ndim; ++d) {
    const int64_t v = pads_ptr != NULL ? pads_ptr[d] : p->pads[d];
    if (v < INT32_MIN || v > INT32_MAX) return KILN_ERR_BAD_ARGUMENT;
    pads[d] = (int32_t)v;
  }
  for (d = p->ndim; d-- > 0u;) {
    if ((int64_t)p->in_shape[d] + pads[d] + pads[d + p->ndim] != p->out_shape[d]) return KILN_ERR_BAD_ARGUMENT;
    /* Reflect needs a mirror image: the pad must be smaller than the dimension. */
    if (p->mode == KILN_PAD_REFLECT && p->out_shape[d] > 0 && p->in_shape[d] == 0) return KILN_ERR_BAD_ARGUMENT;
    if (p->mode == KILN_PAD_EDGE && p->out_shape[d] > 0 && p->in_shape[d] == 0) return KILN_ERR_BAD_ARGUMENT;
    in_stride[d] = s;
    s *= p->in_shape[d];
    count *= (uint32_t)p->out_shape[d];
  }
  for (e = 0; e < count; ++e) {
    int32_t off = 0;
    int inside = 1;
    for (d = 0; d < p->ndim; ++d) {
      const int32_t i = pad_source(idx[d], pads[d], p->in_shape[d], p->mode);
      if (i < 0) { inside = 0; break; }
      off += i * in_stride[d];
    }
    memcpy(dst, inside ? src + (size_t)off * p->elem_size : value, p->elem_size);
    dst += p->elem_size;
    for (d = p->ndim; d-- > 0u;) {
      if (++idx[d] < p->out_shape[d]) break;
      idx[d] = 0;
    }
  }
  return KILN_OK;
}
