/* ONNX Asin (NaN outside [-1, 1]).
 * Float dtypes; float16 is computed in float. */
#include "kiln/elementwise.h"
#include "unary_walk.h"

#define ASIN(SFX, T) KILN_DEFINE_FLOAT_UNARY(asin, SFX, T, KILN_FN_##SFX(asin)(x))

KILN_FLOAT_TYPES(ASIN)
