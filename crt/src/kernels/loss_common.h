/* Shared by nll_loss.c and softmax_cross_entropy.c: target validation, the class of
 * one target element, and the final reduction (see kiln/loss.h for the semantics). */
#ifndef KILN_LOSS_COMMON_H
#define KILN_LOSS_COMMON_H

#include "index_read.h"
#include "kiln/loss.h"

/* Checks the parameters and every target before anything is written, so a bad
 * target never becomes an out-of-bounds read and never leaves a half-written output. */
static inline kiln_status_t kiln_loss_validate(const kiln_loss_params_t* p, const void* target) {
  const size_t count = (size_t)p->n * p->d;
  size_t i;
  if (p->target_size != 4u && p->target_size != 8u) return KILN_ERR_BAD_ARGUMENT;
  if (p->reduction > (uint32_t)KILN_LOSS_MEAN) return KILN_ERR_BAD_ARGUMENT;
  for (i = 0; i < count; ++i) {
    const int64_t t = kiln_read_index(target, p->target_size, i);
    if (p->has_ignore_index && t == p->ignore_index) continue;
    if (t < 0 || t >= (int64_t)p->c) return KILN_ERR_BAD_ARGUMENT;
  }
  return KILN_OK;
}

/* 1 and the class in *cls when target element i counts; 0 when it is ignore_index.
 * Only valid after kiln_loss_validate succeeded. */
static inline int kiln_loss_class(const kiln_loss_params_t* p, const void* target, size_t i, uint32_t* cls) {
  const int64_t t = kiln_read_index(target, p->target_size, i);
  if (p->has_ignore_index && t == p->ignore_index) return 0;
  *cls = (uint32_t)t;
  return 1;
}

/* The reduced loss: the sum, or for MEAN the sum over the summed weights of the
 * counted targets. A zero denominator (every target ignored) gives what IEEE
 * division would (NaN for 0/0, as the ONNX reference), without dividing by zero. */
#define KILN_LOSS_FINISH(T, p, sum, wsum, out)                               \
  do {                                                                       \
    if ((p)->reduction == (uint32_t)KILN_LOSS_SUM) {                         \
      (out)[0] = (sum);                                                      \
    } else if ((p)->reduction == (uint32_t)KILN_LOSS_MEAN) {                 \
      if ((wsum) != (T)0) (out)[0] = (sum) / (wsum);                         \
      else (out)[0] = (sum) == (T)0 ? (T)NAN : (T)((sum) * (T)INFINITY);     \
    }                                                                        \
  } while (0)

#endif /* KILN_LOSS_COMMON_H */
