/* ONNX GatherND (any dtype, batch_dims folded into `batch`): each index tuple
 * selects one contiguous slice of its batch's data, copied in tuple order. */
#include <string.h>

#include "index_read.h"
#include "kiln/indexing.h"

kiln_status_t kiln_gather_nd(const kiln_gather_nd_params_t* p, const void* data, const void* indices, void* out) {
  uint32_t b, t, j;
  size_t pos = 0; /* index tuple element being read */
  uint8_t* dst = (uint8_t*)out;
  if (p == NULL || data == NULL || indices == NULL || out == NULL) return KILN_ERR_NULL_POINTER;
  if (p->k > KILN_MAX_DIMS || (p->index_size != 4u && p->index_size != 8u)) return KILN_ERR_BAD_ARGUMENT;
  for (b = 0; b < p->batch; ++b) {
    for (t = 0; t < p->tuples; ++t) {
      size_t slice = 0;
      for (j = 0; j < p->k; ++j) {
        int64_t at = kiln_read_index(indices, p->index_size, pos++);
        if (!kiln_normalize_index(&at, p->dims[j])) return KILN_ERR_BAD_ARGUMENT;
        slice += (size_t)at * (size_t)p->strides[j];
      }
      memcpy(dst, (const uint8_t*)data + (size_t)b * p->batch_bytes + slice * p->slice_bytes, p->slice_bytes);
      dst += p->slice_bytes;
    }
  }
  return KILN_OK;
}
