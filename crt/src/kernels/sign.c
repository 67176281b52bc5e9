/* ONNX Sign: -1, 0 or 1, every numeric dtype. Floats: NaN stays NaN, and the
 * zero keeps its sign (x itself is returned for +-0). */
#include "kiln/elementwise.h"
#include "unary_walk.h"

#define SIGN_FLOAT(SFX, T) KILN_DEFINE_FLOAT_UNARY(sign, SFX, T, x > 0 ? (CT)1 : x < 0 ? (CT)-1 : x)
#define SIGN_SINT(SFX, T) KILN_DEFINE_UNARY_KERNEL_T(kiln_sign_##SFX, T, T, x > 0 ? (T)1 : x < 0 ? (T)-1 : (T)0)
#define SIGN_UINT(SFX, T) KILN_DEFINE_UNARY_KERNEL_T(kiln_sign_##SFX, T, T, x > 0u ? (T)1 : (T)0)

KILN_FLOAT_TYPES(SIGN_FLOAT)
KILN_SINT_TYPES(SIGN_SINT)
KILN_UINT_TYPES(SIGN_UINT)
