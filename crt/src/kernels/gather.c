/* ONNX Gather (any dtype): for each outer index and each index value, copies one
 * contiguous inner block of the selected row. */
#include <string.h>

#include "index_read.h"
#include "kiln/indexing.h"

kiln_status_t kiln_gather(const kiln_gather_params_t* p, const void* data, const void* indices, void* out) {
  uint32_t o, j;
  const uint8_t* src = (const uint8_t*)data;
  uint8_t* dst = (uint8_t*)out;
  if (p == NULL || data == NULL || indices == NULL || out == NULL) return KILN_ERR_NULL_POINTER;
  if (p->index_size != 4u && p->index_size != 8u) return KILN_ERR_BAD_ARGUMENT;
  for (o = 0; o < p->outer; ++o) {
    for (j = 0; j < p->num_indices; ++j) {
      int64_t at = kiln_read_index(indices, p->index_size, j);
      if (!kiln_normalize_index(&at, p->axis_len)) return KILN_ERR_BAD_ARGUMENT;
      memcpy(dst, src + ((size_t)o * p->axis_len + (size_t)at) * p->inner_bytes, p->inner_bytes);
      dst += p->inner_bytes;
    }
  }
  return KILN_OK;
}
