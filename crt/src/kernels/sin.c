/* ONNX Sin.
 * Float dtypes; float16 is computed in float. */
#include "kiln/elementwise.h"
#include "unary_walk.h"

#define SIN(SFX, T) KILN_DEFINE_FLOAT_UNARY(sin, SFX, T, KILN_FN_##SFX(sin)(x))

KILN_FLOAT_TYPES(SIN)
