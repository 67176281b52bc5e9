/* ONNX Atan.
 * Float dtypes; float16 is computed in float. */
#include "kiln/elementwise.h"
#include "unary_walk.h"

#define ATAN(SFX, T) KILN_DEFINE_FLOAT_UNARY(atan, SFX, T, KILN_FN_##SFX(atan)(x))

KILN_FLOAT_TYPES(ATAN)
