/* ONNX Selu: out = gamma * (x <= 0 ? alpha * (e^x - 1) : x), float dtypes. */
#include "kiln/elementwise.h"
#include "unary_walk.h"

#define SELU(SFX, T) \
  KILN_DEFINE_FLOAT_ACTIVATION(selu, SFX, T, gamma * (x <= 0 ? alpha * KILN_FN_##SFX(expm1)(x) : x))

KILN_FLOAT_TYPES(SELU)
