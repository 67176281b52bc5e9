/* ONNX Mish: out = x * tanh(softplus(x)), float dtypes; softplus as in softplus.c. */
#include "kiln/elementwise.h"
#include "unary_walk.h"

#define MISH(SFX, T)                                                                               \
  KILN_DEFINE_FLOAT_UNARY(mish, SFX, T,                                                            \
                          x * KILN_FN_##SFX(tanh)(x > 0 ? x + KILN_FN_##SFX(log1p)(KILN_FN_##SFX(exp)(-x)) \
                                                        : KILN_FN_##SFX(log1p)(KILN_FN_##SFX(exp)(x))))

KILN_FLOAT_TYPES(MISH)
