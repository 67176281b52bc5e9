/* ONNX Atanh (+-inf at +-1, NaN outside).
 * Float dtypes; float16 is computed in float. */
#include "kiln/elementwise.h"
#include "unary_walk.h"

#define ATANH(SFX, T) KILN_DEFINE_FLOAT_UNARY(atanh, SFX, T, KILN_FN_##SFX(atanh)(x))

KILN_FLOAT_TYPES(ATANH)
