/* ONNX Abs, every numeric dtype. Signed integers negate in the unsigned type, so
 * abs(INT_MIN) wraps to INT_MIN (as numpy) instead of overflowing. Float abs only
 * clears the sign (-0 -> 0, NaN stays NaN). */
#include "kiln/elementwise.h"
#include "unary_walk.h"

#define ABS_FLOAT(SFX, T) KILN_DEFINE_FLOAT_UNARY(abs, SFX, T, KILN_FN_##SFX(fabs)(x))
#define ABS_SINT(SFX, T) \
  KILN_DEFINE_UNARY_KERNEL_T(kiln_abs_##SFX, T, T, x < 0 ? (T)((KILN_WT_##SFX)0 - (KILN_WT_##SFX)x) : x)
#define ABS_UINT(SFX, T) KILN_DEFINE_UNARY_KERNEL_T(kiln_abs_##SFX, T, T, x)

KILN_FLOAT_TYPES(ABS_FLOAT)
KILN_SINT_TYPES(ABS_SINT)
KILN_UINT_TYPES(ABS_UINT)
