/* ONNX Floor: out = the largest integer <= x.
 * Float dtypes; float16 is computed in float. */
#include "kiln/elementwise.h"
#include "unary_walk.h"

#define FLOOR(SFX, T) KILN_DEFINE_FLOAT_UNARY(floor, SFX, T, KILN_FN_##SFX(floor)(x))

KILN_FLOAT_TYPES(FLOOR)
