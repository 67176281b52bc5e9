/* ONNX GatherElements (any dtype): walks the index tensor with an odometer, keeping
 * the data offset of every dimension except `axis`, which comes from the index. */
#include <string.h>

#include "index_read.h"
#include "kiln/indexing.h"

kiln_status_t kiln_gather_elements(const kiln_gather_elements_params_t* p, const void* data, const void* indices,
                                   void* out) {
  int32_t idx[KILN_MAX_DIMS] = {0};
  uint32_t d, count = 1u, i;
  int32_t off = 0; /* data offset of the current position, without the axis term */
  uint8_t* dst = (uint8_t*)out;
  if (p == NULL || data == NULL || indices == NULL || out == NULL) return KILN_ERR_NULL_POINTER;
  if (p->ndim < 1u || p->ndim > KILN_MAX_DIMS || p->axis >= p->ndim) return KILN_ERR_BAD_ARGUMENT;
  if (p->index_size != 4u && p->index_size != 8u) return KILN_ERR_BAD_ARGUMENT;
  for (d = 0; d < p->ndim; ++d) count *= (uint32_t)p->idx_shape[d];
  for (i = 0; i < count; ++i) {
    int64_t at = kiln_read_index(indices, p->index_size, i);
    if (!kiln_normalize_index(&at, p->axis_len)) return KILN_ERR_BAD_ARGUMENT;
    memcpy(dst, (const uint8_t*)data + ((size_t)off + (size_t)at * (size_t)p->data_stride[p->axis]) * p->elem_size,
           p->elem_size);
    dst += p->elem_size;
    for (d = p->ndim; d-- > 0u;) {
      const int32_t s = d == p->axis ? 0 : p->data_stride[d];
      off += s;
      if (++idx[d] < p->idx_shape[d]) break;
      off -= s * p->idx_shape[d];
      idx[d] = 0;
    }
  }
  return KILN_OK;
}
