/* ONNX Sqrt: out = sqrt(x) (NaN for x < 0).
 * Float dtypes; float16 is computed in float. */
#include "kiln/elementwise.h"
#include "unary_walk.h"

#define SQRT(SFX, T) KILN_DEFINE_FLOAT_UNARY(sqrt, SFX, T, KILN_FN_##SFX(sqrt)(x))

KILN_FLOAT_TYPES(SQRT)
