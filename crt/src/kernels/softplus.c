/* ONNX Softplus: out = ln(1 + e^x), float dtypes, written so exp never
 * overflows and small results keep their precision: x + log1p(e^-x) for x > 0,
 * log1p(e^x) otherwise. */
#include "kiln/elementwise.h"
#include "unary_walk.h"

#define SOFTPLUS(SFX, T)                                                               \
  KILN_DEFINE_FLOAT_UNARY(softplus, SFX, T,                                            \
                          x > 0 ? x + KILN_FN_##SFX(log1p)(KILN_FN_##SFX(exp)(-x))     \
                                : KILN_FN_##SFX(log1p)(KILN_FN_##SFX(exp)(x)))

KILN_FLOAT_TYPES(SOFTPLUS)
