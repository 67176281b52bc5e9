/* ONNX Neg, float and signed integer dtypes. Integers negate in the unsigned
 * type, so -INT_MIN wraps to INT_MIN (as numpy) instead of overflowing. */
#include "kiln/elementwise.h"
#include "unary_walk.h"

#define NEG_FLOAT(SFX, T) KILN_DEFINE_FLOAT_UNARY(neg, SFX, T, -x)
#define NEG_SINT(SFX, T) \
  KILN_DEFINE_UNARY_KERNEL_T(kiln_neg_##SFX, T, T, (T)((KILN_WT_##SFX)0 - (KILN_WT_##SFX)x))

KILN_FLOAT_TYPES(NEG_FLOAT)
KILN_SINT_TYPES(NEG_SINT)
