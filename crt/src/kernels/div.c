/* ONNX Div with numpy broadcasting, every numeric dtype: out = a / b.
 * Floats follow IEEE (x / 0 is +-inf or NaN). Integers truncate toward zero like
 * C; the two cases where C is undefined get defined results: x / 0 gives 0 (as
 * numpy does) and INT_MIN / -1 wraps to INT_MIN (computed as 0 - x unsigned). */
#include "broadcast_walk.h"
#include "elementwise_types.h"
#include "kiln/elementwise.h"

#define DIV_FLOAT(SFX, T) \
  KILN_DEFINE_BINARY_KERNEL(kiln_div_##SFX, T, KILN_STORE_##SFX(KILN_LOAD_##SFX(x) / KILN_LOAD_##SFX(y)))
#define DIV_SINT(SFX, T)                                                           \
  KILN_DEFINE_BINARY_KERNEL(kiln_div_##SFX, T,                                     \
                            y == 0    ? (T)0                                       \
                            : y == -1 ? (T)((KILN_WT_##SFX)0 - (KILN_WT_##SFX)x)   \
                                      : (T)(x / y))
#define DIV_UINT(SFX, T) KILN_DEFINE_BINARY_KERNEL(kiln_div_##SFX, T, y == 0u ? (T)0 : (T)(x / y))

KILN_FLOAT_TYPES(DIV_FLOAT)
KILN_SINT_TYPES(DIV_SINT)
KILN_UINT_TYPES(DIV_UINT)
