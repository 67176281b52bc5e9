/* ONNX Div (float32, numpy broadcasting): out = a / b. */
#include "broadcast_walk.h"
#include "kiln/elementwise.h"

KILN_DEFINE_BINARY_KERNEL(kiln_div_f32, float, x / y)
