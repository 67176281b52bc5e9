/* ONNX Sub with numpy broadcasting, every numeric dtype: out = a - b.
 * Integers wrap modulo 2^bits (computed in the unsigned type WT, see add.c). */
#include "broadcast_walk.h"
#include "elementwise_types.h"
#include "kiln/elementwise.h"

#define SUB_FLOAT(SFX, T) \
  KILN_DEFINE_BINARY_KERNEL(kiln_sub_##SFX, T, KILN_STORE_##SFX(KILN_LOAD_##SFX(x) - KILN_LOAD_##SFX(y)))
#define SUB_INT(SFX, T) KILN_DEFINE_BINARY_KERNEL(kiln_sub_##SFX, T, (T)((KILN_WT_##SFX)x - (KILN_WT_##SFX)y))

KILN_FLOAT_TYPES(SUB_FLOAT)
KILN_INT_TYPES(SUB_INT)
