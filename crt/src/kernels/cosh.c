/* ONNX Cosh.
 * Float dtypes; float16 is computed in float. */
#include "kiln/elementwise.h"
#include "unary_walk.h"

#define COSH(SFX, T) KILN_DEFINE_FLOAT_UNARY(cosh, SFX, T, KILN_FN_##SFX(cosh)(x))

KILN_FLOAT_TYPES(COSH)
