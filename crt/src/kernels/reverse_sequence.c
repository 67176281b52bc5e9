/* ONNX ReverseSequence: reverses the first seq_lens[b] time steps of each batch
 * entry; the remaining steps are copied unchanged. Raw elements, any dtype. */
#include <string.h>

#include "kiln/misc.h"

kiln_status_t kiln_reverse_sequence(const kiln_reverse_sequence_params_t* p, const void* in,
                                    const int64_t* seq_lens, void* out) {
  uint32_t batch, time, b, t;
  const uint8_t* src = (const uint8_t*)in;
  uint8_t* dst = (uint8_t*)out;
  if (p == NULL) return KILN_ERR_NULL_POINTER;
  if (p->batch_axis > 1u) return KILN_ERR_BAD_ARGUMENT;
  if ((size_t)p->dim0 * p->dim1 * p->inner_bytes == 0u) return KILN_OK;
  if (in == NULL || seq_lens == NULL || out == NULL) return KILN_ERR_NULL_POINTER;
  batch = p->batch_axis == 0u ? p->dim0 : p->dim1;
  time = p->batch_axis == 0u ? p->dim1 : p->dim0;
  for (b = 0; b < batch; ++b) {
    const int64_t len = seq_lens[b];
    if (len < 0 || len > (int64_t)time) return KILN_ERR_BAD_ARGUMENT;
    for (t = 0; t < time; ++t) {
      const uint32_t from = (int64_t)t < len ? (uint32_t)(len - 1 - (int64_t)t) : t;
      const size_t o = p->batch_axis == 0u ? (size_t)b * time + t : (size_t)t * batch + b;
      const size_t i = p->batch_axis == 0u ? (size_t)b * time + from : (size_t)from * batch + b;
      memcpy(dst + o * p->inner_bytes, src + i * p->inner_bytes, p->inner_bytes);
    }
  }
  return KILN_OK;
}
