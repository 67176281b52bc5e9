/* Shared by the gather/scatter kernels: reading one element of an index tensor
 * (int32 or int64), bounds-checking it, and the scatter reductions. */
#ifndef KILN_INDEX_READ_H
#define KILN_INDEX_READ_H

#include <string.h>

#include "kiln/kernel_common.h"

/* indices[i] as int64 (index_size 4 or 8; memcpy: no alignment assumption). */
static inline int64_t kiln_read_index(const void* indices, uint32_t index_size, size_t i) {
  if (index_size == 8u) {
    int64_t v;
    memcpy(&v, (const uint8_t*)indices + i * 8u, 8);
    return v;
  } else {
    int32_t v;
    memcpy(&v, (const uint8_t*)indices + i * 4u, 4);
    return v;
  }
}

/* Normalizes a possibly negative index into [0, len); returns 0 when out of range. */
static inline int kiln_normalize_index(int64_t* v, int64_t len) {
  if (*v < 0) *v += len;
  return *v >= 0 && *v < len;
}

/* dst (op)= v for the scatter reductions; integers add/multiply in uint64_t so
 * overflow wraps instead of being undefined. */
#define KILN_SCATTER_APPLY(T, WIDE, dst, v, red)           \
  switch (red) {                                           \
    case KILN_SCATTER_ADD: dst = (T)((WIDE)(dst) + (WIDE)(v)); break; \
    case KILN_SCATTER_MUL: dst = (T)((WIDE)(dst) * (WIDE)(v)); break; \
    case KILN_SCATTER_MAX: if ((v) > (dst)) dst = (v); break; \
    case KILN_SCATTER_MIN: if ((v) < (dst)) dst = (v); break; \
    default: dst = (v); break;                             \
  }

#endif /* KILN_INDEX_READ_H */
