/* ONNX Sinh.
 * Float dtypes; float16 is computed in float. */
#include "kiln/elementwise.h"
#include "unary_walk.h"

#define SINH(SFX, T) KILN_DEFINE_FLOAT_UNARY(sinh, SFX, T, KILN_FN_##SFX(sinh)(x))

KILN_FLOAT_TYPES(SINH)
