/* ONNX MaxUnpool, float32: scatters each input value to the output position its
 * index names (MaxPool's Indices, flat over the unpooled shape); every other
 * output element is 0. */
#include "kiln/pool.h"

kiln_status_t kiln_max_unpool_f32(const kiln_max_unpool_params_t* p, const float* in, const int64_t* indices,
                                  float* out) {
  uint32_t i, d;
  int64_t unpooled = 1, out_size = 1;
  if (p == NULL || in == NULL || indices == NULL || out == NULL) return KILN_ERR_NULL_POINTER;
  if (p->ndim == 0u || p->ndim > KILN_MAX_DIMS) return KILN_ERR_BAD_ARGUMENT;
  for (d = 0; d < p->ndim; ++d) {
    if (p->unpooled_shape[d] > p->out_shape[d]) return KILN_ERR_BAD_ARGUMENT;
    unpooled *= p->unpooled_shape[d];
    out_size *= p->out_shape[d];
  }
  for (i = 0; i < (uint32_t)out_size; ++i) out[i] = 0.0f;
  for (i = 0; i < p->in_size; ++i) {
    int64_t rest = indices[i], at = 0, stride = 1;
    if (rest < 0 || rest >= unpooled) return KILN_ERR_BAD_ARGUMENT;
    /* Coordinates in the unpooled shape, re-linearized in the output shape. */
    for (d = p->ndim; d-- > 0u;) {
      at += (rest % p->unpooled_shape[d]) * stride;
      rest /= p->unpooled_shape[d];
      stride *= p->out_shape[d];
    }
    out[at] = in[i];
  }
  return KILN_OK;
}
