/* ONNX Concat (any dtype): for each outer index, each input's contiguous chunk in turn. */
#include <string.h>

#include "kiln/layout.h"

kiln_status_t kiln_concat(const kiln_concat_params_t* p, const void* const* inputs, void* out) {
  uint32_t o, i;
  uint8_t* dst = (uint8_t*)out;
  if (p == NULL || inputs == NULL || out == NULL) return KILN_ERR_NULL_POINTER;
  if (p->num_inputs > KILN_CONCAT_MAX_INPUTS) return KILN_ERR_BAD_ARGUMENT;
  for (i = 0; i < p->num_inputs; ++i)
    if (inputs[i] == NULL && p->chunk_bytes[i] > 0u) return KILN_ERR_NULL_POINTER;
  for (o = 0; o < p->outer; ++o) {
    for (i = 0; i < p->num_inputs; ++i) {
      const uint32_t c = p->chunk_bytes[i];
      if (c == 0u) continue;
      memcpy(dst, (const uint8_t*)inputs[i] + (size_t)o * c, c);
      dst += c;
    }
  }
  return KILN_OK;
}
