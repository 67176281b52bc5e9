/* ONNX Erf: the Gauss error function.
 * Float dtypes; float16 is computed in float. */
#include "kiln/elementwise.h"
#include "unary_walk.h"

#define ERF(SFX, T) KILN_DEFINE_FLOAT_UNARY(erf, SFX, T, KILN_FN_##SFX(erf)(x))

KILN_FLOAT_TYPES(ERF)
