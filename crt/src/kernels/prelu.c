/* ONNX PRelu: out = x < 0 ? slope * x : x, the slope broadcast against x
 * (numpy rules; the output has x's shape). Integer products wrap (see mul.c);
 * an unsigned x is never negative, so it passes through. */
#include "broadcast_walk.h"
#include "elementwise_types.h"
#include "kiln/elementwise.h"

#define PRELU_FLOAT(SFX, T)                                                                \
  static inline KILN_CT_##SFX kiln_prelu_one_##SFX(KILN_CT_##SFX x, KILN_CT_##SFX slope) { \
    return x < 0 ? slope * x : x;                                                          \
  }                                                                                        \
  KILN_DEFINE_BINARY_KERNEL(kiln_prelu_##SFX, T,                                           \
                            KILN_STORE_##SFX(kiln_prelu_one_##SFX(KILN_LOAD_##SFX(x), KILN_LOAD_##SFX(y))))
#define PRELU_SINT(SFX, T) \
  KILN_DEFINE_BINARY_KERNEL(kiln_prelu_##SFX, T, x < 0 ? (T)((KILN_WT_##SFX)y * (KILN_WT_##SFX)x) : x)
#define PRELU_UINT(SFX, T) KILN_DEFINE_BINARY_KERNEL(kiln_prelu_##SFX, T, ((void)y, x))

KILN_FLOAT_TYPES(PRELU_FLOAT)
KILN_SINT_TYPES(PRELU_SINT)
KILN_UINT_TYPES(PRELU_UINT)
