/* ONNX Add with numpy broadcasting, every numeric dtype: out = a + b.
 * Integers wrap modulo 2^bits: the sum is formed in the unsigned type WT, where
 * overflow is defined, and converted back (two's complement, as numpy does). */
#include "broadcast_walk.h"
#include "elementwise_types.h"
#include "kiln/elementwise.h"

#define ADD_FLOAT(SFX, T) \
  KILN_DEFINE_BINARY_KERNEL(kiln_add_##SFX, T, KILN_STORE_##SFX(KILN_LOAD_##SFX(x) + KILN_LOAD_##SFX(y)))
#define ADD_INT(SFX, T) KILN_DEFINE_BINARY_KERNEL(kiln_add_##SFX, T, (T)((KILN_WT_##SFX)x + (KILN_WT_##SFX)y))

KILN_FLOAT_TYPES(ADD_FLOAT)
KILN_INT_TYPES(ADD_INT)
