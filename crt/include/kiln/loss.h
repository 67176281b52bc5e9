/* Loss functions: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (ONNX opset
 * 12/13). Both see the input as [n, c, d] (d = product of the spatial dims d1..dk,
 * 1 for an [N, C] input) and the target as [n, d] class indices.
 *
 * The per-element loss is -w[t] * x[n, t, d] (w = 1 without a weight tensor), or 0
 * where t == ignore_index. Reduction NONE writes n*d losses; SUM writes their sum;
 * MEAN divides the sum by the summed weights of the targets that are not ignored
 * (the element count when there is no weight and no ignore_index), as ONNX defines.
 * A target outside [0, c) that is not ignore_index makes the kernel return
 * KILN_ERR_BAD_ARGUMENT before it writes anything (it is never used as an index).
 *
 * Outputs must not alias the input, except log_prob == in for SoftmaxCrossEntropy
 * (each lane is read completely before it is written). */
#ifndef KILN_LOSS_H
#define KILN_LOSS_H

#include "kiln/kernel_common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  KILN_LOSS_NONE = 0,
  KILN_LOSS_SUM = 1,
  KILN_LOSS_MEAN = 2
} kiln_loss_reduction_t;

typedef struct {
  uint32_t n, c, d;           /* input [n, c, d]; target and unreduced loss [n, d] */
  uint32_t reduction;         /* kiln_loss_reduction_t */
  uint32_t target_size;       /* 4 (int32) or 8 (int64): element size of the target */
  uint32_t has_ignore_index;  /* 0: every target counts */
  int64_t ignore_index;
} kiln_loss_params_t;

/* in: [n, c, d] log-probabilities; target: [n, d] int32/int64; weight: [c] or NULL;
 * out: [n, d] (NONE) or one value. */
#define KILN_DECLARE_NLL_LOSS(suffix, T)                                                              \
  kiln_status_t kiln_nll_loss_##suffix(const kiln_loss_params_t* p, const T* in, const void* target, \
                                       const T* weight, T* out);
KILN_DECLARE_NLL_LOSS(f32, float)
KILN_DECLARE_NLL_LOSS(f64, double)
#undef KILN_DECLARE_NLL_LOSS

/* NLL of log_softmax(in) over axis c. in: [n, c, d] scores; log_prob: [n, c, d], the
 * log-softmax, or NULL when the model does not use it (then no scratch is needed:
 * each lane's log-sum-exp is computed on the fly). */
#define KILN_DECLARE_SCE_LOSS(suffix, T)                                                                \
  kiln_status_t kiln_softmax_cross_entropy_##suffix(const kiln_loss_params_t* p, const T* in,          \
                                                    const void* target, const T* weight, T* out,      \
                                                    T* log_prob);
KILN_DECLARE_SCE_LOSS(f32, float)
KILN_DECLARE_SCE_LOSS(f64, double)
#undef KILN_DECLARE_SCE_LOSS

#ifdef __cplusplus
}
#endif

#endif /* KILN_LOSS_H */
