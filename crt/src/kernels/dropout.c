/* ONNX Dropout (opset 12+) with runtime ratio and training_mode. Only the
 * deterministic cases are computed (see kiln/misc.h): the random mask of training
 * with ratio > 0 is refused rather than made up. Element-wise; out == in is fine. */
#include "kiln/misc.h"

#define KILN_DROPOUT(SFX, T)                                                                        \
  kiln_status_t kiln_dropout_##SFX(const kiln_dropout_params_t* p, const T* in, const float* ratio, \
                                   const uint8_t* training_mode, T* out, uint8_t* mask) {          \
    uint32_t i;                                                                                     \
    if (p == NULL || (p->n > 0u && (in == NULL || out == NULL))) return KILN_ERR_NULL_POINTER;     \
    if (training_mode != NULL && *training_mode != 0u) {                                            \
      /* ratio defaults to 0.5 in training; only a ratio of exactly 0 keeps every element */       \
      if (ratio == NULL || !(*ratio == 0.0f)) return KILN_ERR_BAD_ARGUMENT;                        \
    }                                                                                               \
    for (i = 0; i < p->n; ++i) out[i] = in[i];                                                      \
    if (mask != NULL)                                                                               \
      for (i = 0; i < p->n; ++i) mask[i] = 1u;                                                      \
    return KILN_OK;                                                                                 \
  }

KILN_DROPOUT(f32, float)
KILN_DROPOUT(f64, double)
