/* ONNX Trilu (any dtype) over [batch, rows, cols]: keeps the upper (j - i >= k) or
 * lower (j - i <= k) triangle and zeroes the rest. Element-wise, so out == in is fine. */
#include <string.h>

#include "kiln/indexing.h"

kiln_status_t kiln_trilu(const kiln_trilu_params_t* p, const void* in, const int64_t* k_ptr, void* out) {
  uint32_t b, r, c;
  int64_t k;
  const uint8_t* src = (const uint8_t*)in;
  uint8_t* dst = (uint8_t*)out;
  if (p == NULL || in == NULL || out == NULL) return KILN_ERR_NULL_POINTER;
  if (p->elem_size == 0u || p->elem_size > 8u) return KILN_ERR_BAD_ARGUMENT;
  k = k_ptr != NULL ? *k_ptr : p->k;
  /* Clamp so that j - i - k cannot overflow; beyond +-2^32 every element is on one side. */
  if (k > ((int64_t)1 << 32)) k = (int64_t)1 << 32;
  if (k < -((int64_t)1 << 32)) k = -((int64_t)1 << 32);
  for (b = 0; b < p->batch; ++b) {
    for (r = 0; r < p->rows; ++r) {
      for (c = 0; c < p->cols; ++c) {
        const size_t at = (((size_t)b * p->rows + r) * p->cols + c) * p->elem_size;
        const int64_t diag = (int64_t)c - (int64_t)r;
        const int keep = p->upper ? diag >= k : diag <= k;
        if (keep) {
          if (dst != src) memcpy(dst + at, src + at, p->elem_size);
        } else {
          memset(dst + at, 0, p->elem_size);
        }
      }
    }
  }
  return KILN_OK;
}
