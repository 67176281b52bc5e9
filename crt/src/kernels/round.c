/* ONNX Round: round half to even (numpy.round), float dtypes.
 * Spelled out with floor() instead of rint() so the result does not depend on
 * the FPU rounding mode. d = x - floor(x) is exact for every float, so the tie
 * test is exact. NaN gives NaN and +-inf stays +-inf (d is NaN for both, and the
 * odd-floor branch adds 1 to NaN / inf). */
#include "kiln/elementwise.h"
#include "unary_walk.h"

#define ROUND(SFX, T)                                                                    \
  static inline KILN_CT_##SFX kiln_round_half_even_##SFX(KILN_CT_##SFX x) {              \
    const KILN_CT_##SFX f = KILN_FN_##SFX(floor)(x);                                     \
    const KILN_CT_##SFX d = x - f;                                                       \
    if (d > (KILN_CT_##SFX)0.5) return f + 1;                                            \
    if (d < (KILN_CT_##SFX)0.5) return f;                                                \
    return KILN_FN_##SFX(fmod)(f, (KILN_CT_##SFX)2) != 0 ? f + 1 : f; /* tie: to even */ \
  }                                                                                      \
  KILN_DEFINE_FLOAT_UNARY(round, SFX, T, kiln_round_half_even_##SFX(x))

KILN_FLOAT_TYPES(ROUND)
