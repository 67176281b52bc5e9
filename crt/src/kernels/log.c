/* ONNX Log: out = ln(x) (-inf at 0, NaN for x < 0).
 * Float dtypes; float16 is computed in float. */
#include "kiln/elementwise.h"
#include "unary_walk.h"

#define LOG(SFX, T) KILN_DEFINE_FLOAT_UNARY(log, SFX, T, KILN_FN_##SFX(log)(x))

KILN_FLOAT_TYPES(LOG)
