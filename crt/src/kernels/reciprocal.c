/* ONNX Reciprocal: out = 1 / x (IEEE: 1 / 0 is inf).
 * Float dtypes; float16 is computed in float. */
#include "kiln/elementwise.h"
#include "unary_walk.h"

#define RECIPROCAL(SFX, T) KILN_DEFINE_FLOAT_UNARY(reciprocal, SFX, T, (CT)1 / x)

KILN_FLOAT_TYPES(RECIPROCAL)
