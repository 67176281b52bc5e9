/* ONNX Tanh, float dtypes (float16 computed in float). */
#include "kiln/elementwise.h"
#include "unary_walk.h"

#define TANH(SFX, T) KILN_DEFINE_FLOAT_UNARY(tanh, SFX, T, KILN_FN_##SFX(tanh)(x))

KILN_FLOAT_TYPES(TANH)
