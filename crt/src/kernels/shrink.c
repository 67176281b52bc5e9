/* ONNX Shrink: soft/hard shrinkage around zero. Element-wise; out == in is fine. */
#include "kiln/misc.h"

#define KILN_SHRINK(SFX, T)                                                              \
  kiln_status_t kiln_shrink_##SFX(const kiln_shrink_params_t* p, const T* in, T* out) {  \
    uint32_t i;                                                                          \
    if (p == NULL || (p->n > 0u && (in == NULL || out == NULL))) return KILN_ERR_NULL_POINTER; \
    for (i = 0; i < p->n; ++i) {                                                         \
      const T x = in[i];                                                                 \
      if (x < (T)-p->lambd) out[i] = x + (T)p->bias;                                     \
      else if (x > (T)p->lambd) out[i] = x - (T)p->bias;                                 \
      else out[i] = (T)0;                                                                \
    }                                                                                    \
    return KILN_OK;                                                                      \
  }

KILN_SHRINK(f32, float)
KILN_SHRINK(f64, double)
