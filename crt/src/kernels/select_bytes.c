/* ONNX If, flattened: both branches are computed into their own buffers by the
 * static schedule and this copy picks the one the run-time condition selects. */
#include <string.h>

#include "kiln/control_flow.h"

kiln_status_t kiln_select_bytes(const uint8_t* cond, const void* then_value, const void* else_value, void* out,
                                uint32_t bytes) {
  const void* src;
  if (cond == NULL || out == NULL || (bytes > 0 && (then_value == NULL || else_value == NULL)))
    return KILN_ERR_NULL_POINTER;
  src = *cond ? then_value : else_value;
  if (src != out && bytes > 0) memmove(out, src, bytes);
  return KILN_OK;
}
