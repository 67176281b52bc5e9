/* Convolution. The output must not alias the input, weights or bias. */
#ifndef KILN_CONV_H
#define KILN_CONV_H

#include "kiln/kernel_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * 2-D convolution (1-D is h = 1), NCHW input, OIHW weights (I = c_in / groups),
 * optional bias (NULL: none). Pads are the leading pads; trailing pads are implied
 * by the output size. When `tile_rows` > 0 the kernel uses im2col + GEMM over
 * tiles of `tile_rows` output rows and `scratch` must hold
 * (c_in/groups) * k_h * k_w * tile_rows * w_out floats; when 0 it computes
 * directly (depthwise and 1x1 convolutions need no scratch).
 */
typedef struct {
  uint32_t n, c_in, h_in, w_in;
  uint32_t c_out, h_out, w_out;
  uint32_t k_h, k_w;
  uint32_t stride_h, stride_w;
  uint32_t dilation_h, dilation_w;
  int32_t pad_top, pad_left;
  uint32_t groups;
  uint32_t tile_rows;
} kiln_conv2d_params_t;

kiln_status_t kiln_conv2d_f32(const kiln_conv2d_params_t* p, const float* in, const float* weights,
                              const float* bias, float* out, void* scratch);

#ifdef __cplusplus
}
#endif

#endif /* KILN_CONV_H */
