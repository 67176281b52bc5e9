/* Pooling, NCHW. The output must not alias the input. */
#ifndef KILN_POOL_H
#define KILN_POOL_H

#include "kiln/kernel_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 2-D max/average pooling (1-D is h = 1). Windows start at -pad; positions outside
 * the input are skipped (max) or counted only when count_include_pad (average; the
 * window is then clipped to the padded extent pad_bottom/pad_right). */
typedef struct {
  uint32_t n, c, h_in, w_in, h_out, w_out;
  uint32_t k_h, k_w, stride_h, stride_w, dilation_h, dilation_w;
  int32_t pad_top, pad_left, pad_bottom, pad_right;
  uint8_t count_include_pad;
} kiln_pool2d_params_t;
kiln_status_t kiln_maxpool2d_f32(const kiln_pool2d_params_t* p, const float* in, float* out);
kiln_status_t kiln_avgpool2d_f32(const kiln_pool2d_params_t* p, const float* in, float* out);

/* Global pooling: `channels` (N*C) planes of `size` elements each. */
typedef struct {
  uint32_t channels, size;
} kiln_global_pool_params_t;
kiln_status_t kiln_global_avgpool_f32(const kiln_global_pool_params_t* p, const float* in, float* out);
kiln_status_t kiln_global_maxpool_f32(const kiln_global_pool_params_t* p, const float* in, float* out);

#ifdef __cplusplus
}
#endif

#endif /* KILN_POOL_H */
