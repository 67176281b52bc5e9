/* ONNX Cos.
 * Float dtypes; float16 is computed in float. */
#include "kiln/elementwise.h"
#include "unary_walk.h"

#define COS(SFX, T) KILN_DEFINE_FLOAT_UNARY(cos, SFX, T, KILN_FN_##SFX(cos)(x))

KILN_FLOAT_TYPES(COS)
