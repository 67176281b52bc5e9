/* ONNX NegativeLogLikelihoodLoss over [n, c, d] log-probabilities (kiln/loss.h).
 * One pass over the targets: each counted element gathers one input value, so the
 * work is n*d, independent of c. */
#include "loss_common.h"

#define KILN_NLL_LOSS(suffix, T)                                                                      \
  kiln_status_t kiln_nll_loss_##suffix(const kiln_loss_params_t* p, const T* in, const void* target, \
                                       const T* weight, T* out) {                                     \
    uint32_t n, d, cls;                                                                               \
    T sum = (T)0, wsum = (T)0;                                                                        \
    kiln_status_t st;                                                                                 \
    if (p == NULL || in == NULL || target == NULL || out == NULL) return KILN_ERR_NULL_POINTER;       \
    st = kiln_loss_validate(p, target);                                                               \
    if (st != KILN_OK) return st;                                                                     \
    for (n = 0; n < p->n; ++n) {                                                                      \
      for (d = 0; d < p->d; ++d) {                                                                    \
        const size_t i = (size_t)n * p->d + d;                                                        \
        T loss = (T)0;                                                                                \
        if (kiln_loss_class(p, target, i, &cls)) {                                                    \
          const T w = weight != NULL ? weight[cls] : (T)1;                                            \
          loss = -w * in[((size_t)n * p->c + cls) * p->d + d];                                        \
          wsum += w;                                                                                  \
        }                                                                                             \
        if (p->reduction == (uint32_t)KILN_LOSS_NONE) out[i] = loss;                                  \
        else sum += loss;                                                                             \
      }                                                                                               \
    }                                                                                                 \
    KILN_LOSS_FINISH(T, p, sum, wsum, out);                                                           \
    return KILN_OK;                                                                                   \
  }

KILN_NLL_LOSS(f32, float)
KILN_NLL_LOSS(f64, double)
