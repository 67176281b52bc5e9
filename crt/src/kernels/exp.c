/* ONNX Exp: out = e^x.
 * Float dtypes; float16 is computed in float. */
#include "kiln/elementwise.h"
#include "unary_walk.h"

#define EXP(SFX, T) KILN_DEFINE_FLOAT_UNARY(exp, SFX, T, KILN_FN_##SFX(exp)(x))

KILN_FLOAT_TYPES(EXP)
