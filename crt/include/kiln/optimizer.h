/* On-device training steps of the ai.onnx.preview.training domain: Adagrad, Momentum
 * (standard and Nesterov) and Adam, each one update of `num_tensors` independent
 * tensors (the "multiple" forms update several weights in one node).
 *
 * Pointer arrays follow the ONNX operand order. inputs: R (float scalar learning
 * rate), T (int64 scalar iteration count), then X1..Xn, G1..Gn, and the state
 * tensors (H1..Hn for Adagrad, V1..Vn for Momentum, V1..Vn then H1..Hn for Adam).
 * outputs: X1_new..Xn_new, then the new state in the same order.
 * Every update is element-wise: an output may alias its own X or state input. */
#ifndef KILN_OPTIMIZER_H
#define KILN_OPTIMIZER_H

#include "kiln/kernel_common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KILN_OPTIMIZER_MAX_TENSORS 16

/* Adagrad: r = R / (1 + T * decay_factor); g = norm_coefficient * X + G;
 * H_new = H + g * g; X_new = X - r * g / (sqrt(H_new) + epsilon). */
typedef struct {
  uint32_t num_tensors;
  uint32_t n[KILN_OPTIMIZER_MAX_TENSORS]; /* elements of tensor i */
  float decay_factor, epsilon, norm_coefficient;
} kiln_adagrad_params_t;
kiln_status_t kiln_adagrad_f32(const kiln_adagrad_params_t* p, const void* const* inputs, void* const* outputs);

/* Momentum: g = norm_coefficient * X + G; b = T > 0 ? beta : 1; V_new = alpha * V + b * g;
 * standard: X_new = X - R * V_new; Nesterov: X_new = X - R * (g + alpha * V_new). */
typedef struct {
  uint32_t num_tensors;
  uint32_t n[KILN_OPTIMIZER_MAX_TENSORS];
  float alpha, beta, norm_coefficient;
  uint32_t nesterov; /* 0: mode "standard", 1: mode "nesterov" */
} kiln_momentum_params_t;
kiln_status_t kiln_momentum_f32(const kiln_momentum_params_t* p, const void* const* inputs, void* const* outputs);

/* Adam: g = norm_coefficient * X + G; V_new = alpha * V + (1 - alpha) * g;
 * H_new = beta * H + (1 - beta) * g * g;
 * r = T > 0 ? R * sqrt(1 - beta^T) / (1 - alpha^T) : R (bias correction);
 * X_new = (1 - norm_coefficient_post) * (X - r * V_new / (sqrt(H_new) + epsilon)). */
typedef struct {
  uint32_t num_tensors;
  uint32_t n[KILN_OPTIMIZER_MAX_TENSORS];
  float alpha, beta, epsilon, norm_coefficient, norm_coefficient_post;
} kiln_adam_params_t;
kiln_status_t kiln_adam_f32(const kiln_adam_params_t* p, const void* const* inputs, void* const* outputs);

#ifdef __cplusplus
}
#endif

#endif /* KILN_OPTIMIZER_H */
