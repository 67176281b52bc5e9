/* ONNX Mul with numpy broadcasting, every numeric dtype: out = a * b.
 * Integers wrap modulo 2^bits. The product is formed in the unsigned type WT
 * (uint32_t or uint64_t): multiplying two uint16_t directly would promote them to
 * int, and 65535 * 65535 overflows int, which is undefined behaviour. */
#include "broadcast_walk.h"
#include "elementwise_types.h"
#include "kiln/elementwise.h"

#define MUL_FLOAT(SFX, T) \
  KILN_DEFINE_BINARY_KERNEL(kiln_mul_##SFX, T, KILN_STORE_##SFX(KILN_LOAD_##SFX(x) * KILN_LOAD_##SFX(y)))
#define MUL_INT(SFX, T) KILN_DEFINE_BINARY_KERNEL(kiln_mul_##SFX, T, (T)((KILN_WT_##SFX)x * (KILN_WT_##SFX)y))

KILN_FLOAT_TYPES(MUL_FLOAT)
KILN_INT_TYPES(MUL_INT)
