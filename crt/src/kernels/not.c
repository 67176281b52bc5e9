/* ONNX Not (bool): out = !x; any non-zero byte reads as true. */
#include "kiln/logic.h"
#include "unary_walk.h"

KILN_DEFINE_UNARY_KERNEL_T(kiln_not_b, uint8_t, uint8_t, (uint8_t)(x == 0u ? 1u : 0u))
