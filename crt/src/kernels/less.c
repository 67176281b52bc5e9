/* ONNX Less: out = a < b with numpy broadcasting, bool output, every numeric
 * dtype and bool. float16 compares the float values; comparisons with NaN are false. */
#include "broadcast_walk.h"
#include "elementwise_types.h"
#include "kiln/logic.h"

#define LESS_FLOAT(SFX, T) \
  KILN_DEFINE_BINARY_KERNEL_T(kiln_less_##SFX, T, T, uint8_t, (uint8_t)(KILN_LOAD_##SFX(x) < KILN_LOAD_##SFX(y) ? 1u : 0u))
#define LESS_INT(SFX, T) KILN_DEFINE_BINARY_KERNEL_T(kiln_less_##SFX, T, T, uint8_t, (uint8_t)(x < y ? 1u : 0u))

KILN_FLOAT_TYPES(LESS_FLOAT)
KILN_INT_TYPES(LESS_INT)
/* bool: any non-zero byte is true (1). */
KILN_DEFINE_BINARY_KERNEL_T(kiln_less_b, uint8_t, uint8_t, uint8_t, (uint8_t)((x != 0u) < (y != 0u) ? 1u : 0u))
