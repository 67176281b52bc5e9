/* ONNX Tan.
 * Float dtypes; float16 is computed in float. */
#include "kiln/elementwise.h"
#include "unary_walk.h"

#define TAN(SFX, T) KILN_DEFINE_FLOAT_UNARY(tan, SFX, T, KILN_FN_##SFX(tan)(x))

KILN_FLOAT_TYPES(TAN)
