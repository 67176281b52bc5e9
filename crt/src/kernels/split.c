/* ONNX Split (any dtype): the input is [outer, sum of chunks]; for each outer index
 * each output receives its contiguous chunk in turn (the inverse of concat.c). */
#include <string.h>

#include "kiln/indexing.h"

kiln_status_t kiln_split(const kiln_split_params_t* p, const void* in, void* const* outputs) {
  uint32_t o, i;
  const uint8_t* src = (const uint8_t*)in;
  if (p == NULL || in == NULL || outputs == NULL) return KILN_ERR_NULL_POINTER;
  if (p->num_outputs > KILN_SPLIT_MAX_OUTPUTS) return KILN_ERR_BAD_ARGUMENT;
  for (i = 0; i < p->num_outputs; ++i)
    if (outputs[i] == NULL && p->chunk_bytes[i] > 0u) return KILN_ERR_NULL_POINTER;
  for (o = 0; o < p->outer; ++o) {
    for (i = 0; i < p->num_outputs; ++i) {
      const uint32_t c = p->chunk_bytes[i];
      if (c == 0u) continue;
      memcpy((uint8_t*)outputs[i] + (size_t)o * c, src, c);
      src += c;
    }
  }
  return KILN_OK;
}
