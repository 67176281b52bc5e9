/* One slice along an axis ([outer, axis, inner] -> [outer, inner]), as a byte copy:
 * Scan's per-step view of a scanned input. */
#include <string.h>

#include "kiln/control_flow.h"

kiln_status_t kiln_take_slice(const kiln_take_slice_params_t* p, const void* in, void* out) {
  uint32_t o;
  if (p == NULL || in == NULL || out == NULL) return KILN_ERR_NULL_POINTER;
  if (p->index >= p->axis) return KILN_ERR_BAD_ARGUMENT;
  for (o = 0; o < p->outer; ++o)
    memcpy((uint8_t*)out + (size_t)o * p->inner_bytes,
           (const uint8_t*)in + ((size_t)o * p->axis + p->index) * p->inner_bytes, p->inner_bytes);
  return KILN_OK;
}
