/* ONNX HardSigmoid: out = max(0, min(1, alpha * x + beta)), float dtypes.
 * NaN stays NaN (both comparisons are false). */
#include "kiln/elementwise.h"
#include "unary_walk.h"

#define HARDSIGMOID_CLAMP01(v) ((v) < 0 ? (CT)0 : (v) > 1 ? (CT)1 : (v))
#define HARDSIGMOID(SFX, T) \
  KILN_DEFINE_FLOAT_ACTIVATION(hardsigmoid, SFX, T, HARDSIGMOID_CLAMP01(alpha * x + beta))

KILN_FLOAT_TYPES(HARDSIGMOID)
