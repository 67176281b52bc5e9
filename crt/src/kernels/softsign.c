/* ONNX Softsign: out = x / (1 + |x|).
 * Float dtypes; float16 is computed in float. */
#include "kiln/elementwise.h"
#include "unary_walk.h"

#define SOFTSIGN(SFX, T) KILN_DEFINE_FLOAT_UNARY(softsign, SFX, T, x / ((CT)1 + KILN_FN_##SFX(fabs)(x)))

KILN_FLOAT_TYPES(SOFTSIGN)
