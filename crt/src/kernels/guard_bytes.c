/* ONNX Loop, flattened with a static number of steps taken from the declared length
 * of its scan outputs: this copy passes an output through only when the run-time
 * check says the loop ran exactly that many iterations. */
#include <string.h>

#include "kiln/control_flow.h"

kiln_status_t kiln_guard_bytes(const uint8_t* ok, const void* in, void* out, uint32_t bytes) {
  if (ok == NULL || out == NULL || (bytes > 0 && in == NULL)) return KILN_ERR_NULL_POINTER;
  if (!*ok) return KILN_ERR_BAD_ARGUMENT;
  if (in != out && bytes > 0) memmove(out, in, bytes);
  return KILN_OK;
}
