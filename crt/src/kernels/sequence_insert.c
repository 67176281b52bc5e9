/* SequenceInsert at a run-time position (kiln/sequence.h): the element is copied
 * into its slot, the table entries from the position on move back by one. */
#include <string.h>

#include "kiln/sequence.h"

kiln_status_t kiln_seq_insert(const kiln_seq_params_t* p, const void* in, const void* elem, const void* pos,
                              uint32_t pos_bytes, void* out) {
  uint32_t n, q, i;
  kiln_status_t st;
  if (p == NULL || in == NULL || out == NULL || (elem == NULL && p->elem_bytes > 0)) return KILN_ERR_NULL_POINTER;
  st = kiln_seq_check(p, in, &n);
  if (st != KILN_OK) return st;
  if (n >= p->capacity || p->slot >= p->capacity) return KILN_ERR_BAD_ARGUMENT;
  for (i = 0; i < n; ++i)
    if (kiln_seq_load_u32(in, 4u + 4u * i) == p->slot) return KILN_ERR_BAD_ARGUMENT; /* slot not free */
  st = kiln_seq_position(pos, pos_bytes, (int64_t)n, n, 1, &q);
  if (st != KILN_OK) return st;
  if (out != in) memcpy(out, in, KILN_SEQ_BYTES(p->capacity, p->elem_bytes));
  if (p->elem_bytes > 0)
    memcpy((uint8_t*)out + KILN_SEQ_SLOTS_OFFSET(p->capacity) + (size_t)p->slot * p->elem_bytes, elem, p->elem_bytes);
  for (i = n; i > q; --i) kiln_seq_store_u32(out, 4u + 4u * i, kiln_seq_load_u32(out, 4u + 4u * (i - 1u)));
  kiln_seq_store_u32(out, 4u + 4u * q, p->slot);
  kiln_seq_store_u32(out, 0, n + 1u);
  return KILN_OK;
}
