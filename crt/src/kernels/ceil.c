/* ONNX Ceil: out = the smallest integer >= x.
 * Float dtypes; float16 is computed in float. */
#include "kiln/elementwise.h"
#include "unary_walk.h"

#define CEIL(SFX, T) KILN_DEFINE_FLOAT_UNARY(ceil, SFX, T, KILN_FN_##SFX(ceil)(x))

KILN_FLOAT_TYPES(CEIL)
