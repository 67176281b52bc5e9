/* ONNX SoftmaxCrossEntropyLoss: NLL (kiln/loss.h) of log_softmax(in) over axis c.
 * Each [n, :, d] lane gets its log-sum-exp (max subtracted so exp() cannot
 * overflow); the loss needs only x[target] - lse, so log_prob is written only when
 * the model asks for it and no scratch buffer is needed otherwise. */
#include <math.h>

#include "loss_common.h"

#define KILN_SCE_LOSS(suffix, T, EXP, LOG)                                                            \
  kiln_status_t kiln_softmax_cross_entropy_##suffix(const kiln_loss_params_t* p, const T* in,         \
                                                    const void* target, const T* weight, T* out,     \
                                                    T* log_prob) {                                   \
    uint32_t n, d, a, cls;                                                                            \
    T sum = (T)0, wsum = (T)0;                                                                        \
    kiln_status_t st;                                                                                 \
    if (p == NULL || in == NULL || target == NULL || out == NULL) return KILN_ERR_NULL_POINTER;       \
    st = kiln_loss_validate(p, target);                                                               \
    if (st != KILN_OK) return st;                                                                     \
    for (n = 0; n < p->n; ++n) {                                                                      \
      for (d = 0; d < p->d; ++d) {                                                                    \
        const size_t i = (size_t)n * p->d + d;                                                        \
        const size_t base = (size_t)n * p->c * p->d + d;                                              \
        const T* x = in + base;                                                                       \
        T m = (T)-INFINITY, s = (T)0, lse, loss = (T)0;                                               \
        for (a = 0; a < p->c; ++a)                                                                    \
          if (x[(size_t)a * p->d] > m) m = x[(size_t)a * p->d];                                       \
        for (a = 0; a < p->c; ++a) s += EXP(x[(size_t)a * p->d] - m);                                 \
        lse = m + LOG(s);                                                                             \
        /* The target's value is read before log_prob (which may be `in`) is written. */            \
        if (kiln_loss_class(p, target, i, &cls)) {                                                    \
          const T w = weight != NULL ? weight[cls] : (T)1;                                            \
          loss = -w * (x[(size_t)cls * p->d] - lse);                                                  \
          wsum += w;                                                                                  \
        }                                                                                             \
        if (log_prob != NULL)                                                                         \
          for (a = 0; a < p->c; ++a) log_prob[base + (size_t)a * p->d] = x[(size_t)a * p->d] - lse;   \
        if (p->reduction == (uint32_t)KILN_LOSS_NONE) out[i] = loss;                                  \
        else sum += loss;                                                                             \
      }                                                                                               \
    }                                                                                                 \
    KILN_LOSS_FINISH(T, p, sum, wsum, out);                                                           \
    return KILN_OK;                                                                                   \
  }

KILN_SCE_LOSS(f32, float, expf, logf)
KILN_SCE_LOSS(f64, double, exp, log)
