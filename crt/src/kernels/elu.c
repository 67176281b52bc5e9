/* ONNX Elu: out = x < 0 ? alpha * (e^x - 1) : x, float dtypes; expm1 keeps the
 * precision of e^x - 1 near 0. */
#include "kiln/elementwise.h"
#include "unary_walk.h"

#define ELU(SFX, T) KILN_DEFINE_FLOAT_ACTIVATION(elu, SFX, T, x < 0 ? alpha * KILN_FN_##SFX(expm1)(x) : x)

KILN_FLOAT_TYPES(ELU)
