/* ONNX LeakyRelu: out = x < 0 ? alpha * x : x, float dtypes. */
#include "kiln/elementwise.h"
#include "unary_walk.h"

#define LEAKYRELU(SFX, T) KILN_DEFINE_FLOAT_ACTIVATION(leakyrelu, SFX, T, x < 0 ? alpha * x : x)

KILN_FLOAT_TYPES(LEAKYRELU)
