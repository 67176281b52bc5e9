/* A run-time sequence table from elements the compiler knows (kiln/sequence.h). */
#include <string.h>

#include "kiln/sequence.h"

kiln_status_t kiln_seq_build(const kiln_seq_params_t* p, const void* const* elems, uint32_t count, void* seq) {
  uint32_t i;
  uint8_t* slots;
  if (p == NULL || seq == NULL || (count > 0 && elems == NULL)) return KILN_ERR_NULL_POINTER;
  if (count > p->capacity) return KILN_ERR_BAD_ARGUMENT;
  slots = (uint8_t*)seq + KILN_SEQ_SLOTS_OFFSET(p->capacity);
  kiln_seq_store_u32(seq, 0, count);
  for (i = 0; i < count; ++i) {
    if (elems[i] == NULL && p->elem_bytes > 0) return KILN_ERR_NULL_POINTER;
    kiln_seq_store_u32(seq, 4u + 4u * i, i);
    /* An element its producer wrote straight into its slot is already there. */
    if (p->elem_bytes > 0 && elems[i] != slots + (size_t)i * p->elem_bytes)
      memcpy(slots + (size_t)i * p->elem_bytes, elems[i], p->elem_bytes);
  }
  return KILN_OK;
}
