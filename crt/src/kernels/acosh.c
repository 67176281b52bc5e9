/* ONNX Acosh (NaN below 1).
 * Float dtypes; float16 is computed in float. */
#include "kiln/elementwise.h"
#include "unary_walk.h"

#define ACOSH(SFX, T) KILN_DEFINE_FLOAT_UNARY(acosh, SFX, T, KILN_FN_##SFX(acosh)(x))

KILN_FLOAT_TYPES(ACOSH)
