/* ONNX Compress: the slices along one axis whose condition entry is true. The
 * condition is counted first; the output is written only when the count is the
 * planned one. */
#include <string.h>

#include "kiln/selection.h"

kiln_status_t kiln_compress(const kiln_compress_params_t* p, const void* x, const uint8_t* condition, void* out) {
  uint32_t j, o, k;
  uint32_t selected = 0;
  size_t block;
  const uint8_t* src = (const uint8_t*)x;
  uint8_t* dst = (uint8_t*)out;
  if (p == NULL) return KILN_ERR_NULL_POINTER;
  if (condition == NULL && p->cond_len > 0u) return KILN_ERR_NULL_POINTER;
  for (j = 0; j < p->cond_len; ++j) {
    if (condition[j] == 0u) continue;
    if (j >= p->axis) return KILN_ERR_BAD_ARGUMENT; /* selects a slice the input does not have */
    ++selected;
  }
  if (selected != p->count) return KILN_ERR_BAD_ARGUMENT;
  block = (size_t)p->inner * p->elem_size;
  if (selected == 0u || block == 0u || p->outer == 0u) return KILN_OK;
  if (x == NULL || out == NULL) return KILN_ERR_NULL_POINTER;
  for (o = 0; o < p->outer; ++o) {
    k = 0;
    for (j = 0; j < p->cond_len && k < selected; ++j) {
      if (condition[j] == 0u) continue;
      memcpy(dst + ((size_t)o * selected + k) * block, src + ((size_t)o * p->axis + j) * block, block);
      ++k;
    }
  }
  return KILN_OK;
}
