/* ONNX Mul (float32, numpy broadcasting): out = a * b. */
#include "broadcast_walk.h"
#include "kiln/elementwise.h"

KILN_DEFINE_BINARY_KERNEL(kiln_mul_f32, float, x * y)
