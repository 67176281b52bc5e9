/* ONNX HardSwish: out = x * max(0, min(1, x / 6 + 1/2)).
 * Float dtypes; float16 is computed in float. */
#include "kiln/elementwise.h"
#include "unary_walk.h"

#define HARDSWISH(SFX, T) KILN_DEFINE_FLOAT_UNARY(hardswish, SFX, T, x * (x <= (CT)-3 ? (CT)0 : x >= (CT)3 ? (CT)1 : x / (CT)6 + (CT)0.5))

KILN_FLOAT_TYPES(HARDSWISH)
