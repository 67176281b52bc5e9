/* SequenceAt at a run-time position (kiln/sequence.h): a copy of the element. */
#include <string.h>

#include "kiln/sequence.h"

kiln_status_t kiln_seq_at(const kiln_seq_params_t* p, const void* seq, const void* pos, uint32_t pos_bytes,
                          void* out) {
  uint32_t n, q, slot;
  kiln_status_t st;
  if (p == NULL || seq == NULL || (out == NULL && p->elem_bytes > 0)) return KILN_ERR_NULL_POINTER;
  if (pos == NULL) return KILN_ERR_NULL_POINTER;
  st = kiln_seq_check(p, seq, &n);
  if (st != KILN_OK) return st;
  st = kiln_seq_position(pos, pos_bytes, 0, n, 0, &q);
  if (st != KILN_OK) return st;
  slot = kiln_seq_load_u32(seq, 4u + 4u * q);
  if (p->elem_bytes > 0)
    memcpy(out, (const uint8_t*)seq + KILN_SEQ_SLOTS_OFFSET(p->capacity) + (size_t)slot * p->elem_bytes,
           p->elem_bytes);
  return KILN_OK;
}
