/* ONNX Celu: out = max(0, x) + min(0, alpha * (e^(x/alpha) - 1)), float dtypes.
 * For x > 0 the second term is 0, for x <= 0 the first is, so one branch. */
#include "kiln/elementwise.h"
#include "unary_walk.h"

#define CELU(SFX, T) \
  KILN_DEFINE_FLOAT_ACTIVATION(celu, SFX, T, x > 0 ? x : alpha * KILN_FN_##SFX(expm1)(x / alpha))

KILN_FLOAT_TYPES(CELU)
