/* A run-time sequence back into static tensors (kiln/sequence.h): one copy per
 * element, for a sequence graph output or ConcatFromSequence. */
#include <string.h>

#include "kiln/sequence.h"

kiln_status_t kiln_seq_materialize(const kiln_seq_params_t* p, const void* seq, void* const* outs, uint32_t count) {
  uint32_t n, i;
  kiln_status_t st;
  const uint8_t* slots;
  if (p == NULL || seq == NULL || (count > 0 && outs == NULL)) return KILN_ERR_NULL_POINTER;
  st = kiln_seq_check(p, seq, &n);
  if (st != KILN_OK) return st;
  if (n != count) return KILN_ERR_BAD_ARGUMENT;
  slots = (const uint8_t*)seq + KILN_SEQ_SLOTS_OFFSET(p->capacity);
  for (i = 0; i < n; ++i) {
    if (p->elem_bytes == 0) continue;
    if (outs[i] == NULL) return KILN_ERR_NULL_POINTER;
    memcpy(outs[i], slots + (size_t)kiln_seq_load_u32(seq, 4u + 4u * i) * p->elem_bytes, p->elem_bytes);
  }
  return KILN_OK;
}
