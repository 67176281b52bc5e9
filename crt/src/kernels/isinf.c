/* ONNX IsInf: float dtypes in, bool out; detect_positive / detect_negative select
 * which infinities count. */
#include "kiln/elementwise.h"
#include "unary_walk.h"

#define ISINF(SFX, T)                                                                                    \
  static inline uint8_t kiln_isinf_one_##SFX(const kiln_isinf_params_t* p, KILN_CT_##SFX v) {            \
    if (!isinf(v)) return 0u;                                                                            \
    return (uint8_t)((v > 0 ? p->detect_positive : p->detect_negative) != 0u ? 1u : 0u);                 \
  }                                                                                                      \
  KILN_DEFINE_PARAM_UNARY_KERNEL(kiln_isinf_##SFX, kiln_isinf_params_t, T, uint8_t,                      \
                                 kiln_isinf_one_##SFX(p, KILN_LOAD_##SFX(x)))

KILN_FLOAT_TYPES(ISINF)
