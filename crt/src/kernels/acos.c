/* ONNX Acos (NaN outside [-1, 1]).
 * Float dtypes; float16 is computed in float. */
#include "kiln/elementwise.h"
#include "unary_walk.h"

#define ACOS(SFX, T) KILN_DEFINE_FLOAT_UNARY(acos, SFX, T, KILN_FN_##SFX(acos)(x))

KILN_FLOAT_TYPES(ACOS)
