/* SequenceErase at a run-time position (kiln/sequence.h): only the table changes;
 * the erased element's slot is left unused. */
#include <string.h>

#include "kiln/sequence.h"

kiln_status_t kiln_seq_erase(const kiln_seq_params_t* p, const void* in, const void* pos, uint32_t pos_bytes,
                             void* out) {
  uint32_t n, q, i;
  kiln_status_t st;
  if (p == NULL || in == NULL || out == NULL) return KILN_ERR_NULL_POINTER;
  st = kiln_seq_check(p, in, &n);
  if (st != KILN_OK) return st;
  st = kiln_seq_position(pos, pos_bytes, (int64_t)n - 1, n, 0, &q);
  if (st != KILN_OK) return st;
  if (out != in) memcpy(out, in, KILN_SEQ_BYTES(p->capacity, p->elem_bytes));
  for (i = q; i + 1u < n; ++i) kiln_seq_store_u32(out, 4u + 4u * i, kiln_seq_load_u32(out, 4u + 4u * (i + 1u)));
  kiln_seq_store_u32(out, 0, n - 1u);
  return KILN_OK;
}
