/* ONNX Xor (bool, numpy broadcasting); any non-zero byte reads as true. */
#include "broadcast_walk.h"
#include "kiln/logic.h"

KILN_DEFINE_BINARY_KERNEL(kiln_xor_b, uint8_t, (uint8_t)(((x != 0u) != (y != 0u)) ? 1u : 0u))
