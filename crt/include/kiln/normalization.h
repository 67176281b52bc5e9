/* Softmax and batch normalization. Both allow out == in. */
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

#ifdef __cplusplus
}
#endif

#endif /* KILN_NORMALIZATION_H */
