/*
 * Element-wise kernels. All of them allow the output to alias an input of the
 * same size (`out == in`): each element is read before it is written.
 */
#ifndef KILN_ELEMENTWISE_H
#define KILN_ELEMENTWISE_H

#include "kiln/kernel_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* out = a (op) b with broadcasting; see kiln_broadcast_t. */
kiln_status_t kiln_add_f32(const kiln_broadcast_t* p, const float* a, const float* b, float* out);
kiln_status_t kiln_sub_f32(const kiln_broadcast_t* p, const float* a, const float* b, float* out);
kiln_status_t kiln_mul_f32(const kiln_broadcast_t* p, const float* a, const float* b, float* out);
kiln_status_t kiln_div_f32(const kiln_broadcast_t* p, const float* a, const float* b, float* out);

/* Unary activations over `n` elements. */
kiln_status_t kiln_relu_f32(const float* in, float* out, uint32_t n);
kiln_status_t kiln_sigmoid_f32(const float* in, float* out, uint32_t n);
kiln_status_t kiln_tanh_f32(const float* in, float* out, uint32_t n);

typedef struct {
  uint32_t n;
  float min; /* -INFINITY when absent */
  float max; /* +INFINITY when absent */
} kiln_clip_params_t;
kiln_status_t kiln_clip_f32(const kiln_clip_params_t* p, const float* in, float* out);

#ifdef __cplusplus
}
#endif

#endif /* KILN_ELEMENTWISE_H */
