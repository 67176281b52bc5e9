/* ONNX Asinh.
 * Float dtypes; float16 is computed in float. */
#include "kiln/elementwise.h"
#include "unary_walk.h"

#define ASINH(SFX, T) KILN_DEFINE_FLOAT_UNARY(asinh, SFX, T, KILN_FN_##SFX(asinh)(x))

KILN_FLOAT_TYPES(ASINH)
