/* ONNX Sigmoid: out = 1 / (1 + e^-x), float dtypes, written so exp never
 * overflows: for x < 0 it uses e^x / (1 + e^x). */
#include "kiln/elementwise.h"
#include "unary_walk.h"

#define SIGMOID(SFX, T)                                                                    \
  KILN_DEFINE_FLOAT_UNARY(sigmoid, SFX, T,                                                 \
                          x >= 0 ? (CT)1 / ((CT)1 + KILN_FN_##SFX(exp)(-x))                \
                                 : KILN_FN_##SFX(exp)(x) / ((CT)1 + KILN_FN_##SFX(exp)(x)))

KILN_FLOAT_TYPES(SIGMOID)
