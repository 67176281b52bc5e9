/* ONNX BitShift (unsigned integers, numpy broadcasting): out = x << y or x >> y.
 * A shift by >= the bit width is undefined in C; here it gives 0, which is what
 * shifting the bits out one at a time would leave. The shift is done in WT
 * (uint32_t / uint64_t) so a uint8_t or uint16_t is never promoted to signed int. */
#include "broadcast_walk.h"
#include "elementwise_types.h"
#include "kiln/elementwise.h"

#define BITSHIFT(SFX, T)                                                                              \
  KILN_DEFINE_BINARY_KERNEL(kiln_bitshift_left_##SFX, T,                                              \
                            y >= sizeof(T) * 8u ? (T)0 : (T)((KILN_WT_##SFX)x << y))                  \
  KILN_DEFINE_BINARY_KERNEL(kiln_bitshift_right_##SFX, T,                                             \
                            y >= sizeof(T) * 8u ? (T)0 : (T)((KILN_WT_##SFX)x >> y))

KILN_UINT_TYPES(BITSHIFT)
