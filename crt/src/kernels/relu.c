/* ONNX Relu: out = max(x, 0), float and signed integer dtypes. NaN stays NaN
 * (the comparison is false). */
#include "kiln/elementwise.h"
#include "unary_walk.h"

#define RELU_FLOAT(SFX, T) KILN_DEFINE_FLOAT_UNARY(relu, SFX, T, x < 0 ? (CT)0 : x)
#define RELU_SINT(SFX, T) KILN_DEFINE_UNARY_KERNEL_T(kiln_relu_##SFX, T, T, x < 0 ? (T)0 : x)

KILN_FLOAT_TYPES(RELU_FLOAT)
KILN_SINT_TYPES(RELU_SINT)
