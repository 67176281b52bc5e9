/* Softmax and the normalizations (batch, instance, layer, LRN, mean-variance).
 * All but LRN allow out == in: statistics are gathered before a slice is written. */
#ifndef KILN_NORMALIZATION_H
#define KILN_NORMALIZATION_H

#include "kiln/kernel_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Softmax over `axis` of a tensor seen as [outer, axis, inner]. */
typedef struct {
  uint32_t outer, axis, inner;
} kiln_softmax_params_t;
kiln_status_t kiln_softmax_f32(const kiln_softmax_params_t* p, const float* in, float* out);

/* Inference batch normalization over NC[...] data: y = (x - mean) / sqrt(var + eps) * scale + bias. */
typedef struct {
  uint32_t n, c, size; /* size: elements per channel plane */
  float epsilon;
} kiln_batchnorm_params_t;
kiln_status_t kiln_batchnorm_f32(const kiln_batchnorm_params_t* p, const float* in, const float* scale,
                                 const float* bias, const float* mean, const float* var, float* out);

/* BatchNormalization with training_mode = 1: the statistics come from the batch
 * (mean and population variance over N and the spatial dims per channel) and the
 * running statistics are updated: out_mean = mean * momentum + batch_mean * (1 - momentum),
 * likewise out_var. out_mean / out_var may be NULL. */
typedef struct {
  uint32_t n, c, size;
  float epsilon, momentum;
} kiln_batchnorm_training_params_t;
kiln_status_t kiln_batchnorm_training_f32(const kiln_batchnorm_training_params_t* p, const float* in,
                                          const float* scale, const float* bias, const float* mean,
                                          const float* var, float* out, float* out_mean, float* out_var);

/* InstanceNormalization over NC[...] data: each (n, c) plane is normalized by its own
 * mean and (population) variance, then y = x_hat * scale[c] + bias[c]. */
typedef struct {
  uint32_t n, c, size; /* size: elements per channel plane */
  float epsilon;
} kiln_instancenorm_params_t;
kiln_status_t kiln_instancenorm_f32(const kiln_instancenorm_params_t* p, const float* in, const float* scale,
                                    const float* bias, float* out);

/* LayerNormalization of a tensor seen as [outer, inner] (inner = the dims from `axis`
 * on): y = (x - mean) * inv_std * scale + bias with inv_std = 1 / sqrt(var + eps).
 * bias, mean_out and inv_std_out may be NULL; mean_out/inv_std_out hold `outer` values. */
typedef struct {
  uint32_t outer, inner;
  float epsilon;
} kiln_layernorm_params_t;
kiln_status_t kiln_layernorm_f32(const kiln_layernorm_params_t* p, const float* in, const float* scale,
                                 const float* bias, float* out, float* mean_out, float* inv_std_out);

/* Local response normalization across channels of NC[...] data:
 * y = x / (bias + alpha / size * sum of x^2 over channels [c - (size-1)/2, c + size/2])^beta.
 * Not in place: the window reads neighbouring channels (out must not alias in). */
typedef struct {
  uint32_t n, c, spatial, size;
  float alpha, beta, bias;
} kiln_lrn_params_t;
kiln_status_t kiln_lrn_f32(const kiln_lrn_params_t* p, const float* in, float* out);

/* MeanVarianceNormalization: y = (x - mean) / (sqrt(var) + 1e-9), mean and variance over
 * the reduced axes. The tensor is described as kept dims and reduced dims, each with
 * its element strides into the input (the output uses the same offsets). */
typedef struct {
  uint32_t kept_ndim, red_ndim;
  uint32_t kept_shape[KILN_MAX_DIMS];
  uint32_t kept_stride[KILN_MAX_DIMS];
  uint32_t red_shape[KILN_MAX_DIMS];
  uint32_t red_stride[KILN_MAX_DIMS];
} kiln_mvn_params_t;
kiln_status_t kiln_mvn_f32(const kiln_mvn_params_t* p, const float* in, float* out);

#ifdef __cplusplus
}
#endif

#endif /* KILN_NORMALIZATION_H */
