/* Helpers of the run-time sequence table (kiln/sequence.h). */
#include <string.h>

#include "kiln/sequence.h"

uint32_t kiln_seq_load_u32(const void* seq, uint32_t byte_offset) {
  uint32_t v;
  memcpy(&v, (const uint8_t*)seq + byte_offset, sizeof v);
  return v;
}

void kiln_seq_store_u32(void* seq, uint32_t byte_offset, uint32_t v) {
  memcpy((uint8_t*)seq + byte_offset, &v, sizeof v);
}

kiln_status_t kiln_seq_position(const void* pos, uint32_t pos_bytes, int64_t dflt, uint32_t count, int allow_end,
                                uint32_t* q) {
  int64_t v = dflt;
  const int64_t n = (int64_t)count;
  if (pos != NULL) {
    if (pos_bytes == 4) {
      int32_t v32;
      memcpy(&v32, pos, sizeof v32);
      v = v32;
    } else if (pos_bytes == 8) {
      memcpy(&v, pos, sizeof v);
    } else {
      return KILN_ERR_BAD_ARGUMENT;
    }
  }
  if (v < 0) v += n;
  if (v < 0 || v > n || (!allow_end && v == n)) return KILN_ERR_BAD_ARGUMENT;
  *q = (uint32_t)v;
  return KILN_OK;
}

kiln_status_t kiln_seq_check(const kiln_seq_params_t* p, const void* seq, uint32_t* count) {
  uint32_t i, n;
  if (p == NULL || seq == NULL) return KILN_ERR_NULL_POINTER;
  n = kiln_seq_load_u32(seq, 0);
  if (n > p->capacity) return KILN_ERR_BAD_ARGUMENT;
  for (i = 0; i < n; ++i)
    if (kiln_seq_load_u32(seq, 4u + 4u * i) >= p->capacity) return KILN_ERR_BAD_ARGUMENT;
  *count = n;
  return KILN_OK;
}
