/* Convolution and transposed convolution. The output must not alias any input. */
#ifndef KILN_CONV_H
#define KILN_CONV_H

#include "kiln/kernel_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Convolution over up to three spatial axes (depth, height, width), NC[D]HW input,
 * OI[D]HW weights (I = c_in / groups), optional bias (NULL: none). 1-D and 2-D
 * convolutions set the unused leading axes to size 1 (and stride/dilation 1). Pads
 * are the leading pads; trailing pads are implied by the output size.
 * When `tile_rows` > 0 the kernel uses im2col + GEMM over tiles of `tile_rows`
 * output rows (a row is one (depth, height) position) and `scratch` must hold
 * (c_in/groups) * k_d * k_h * k_w * tile_rows * w_out floats; when 0 it computes
 * directly (depthwise and 1x1 convolutions need no scratch).
 */
typedef struct {
  uint32_t n, c_in, d_in, h_in, w_in;
  uint32_t c_out, d_out, h_out, w_out;
  uint32_t k_d, k_h, k_w;
  uint32_t stride_d, stride_h, stride_w;
  uint32_t dilation_d, dilation_h, dilation_w;
  int32_t pad_front, pad_top, pad_left;
  uint32_t groups;
  uint32_t tile_rows;
  uint32_t weights_layout; /* KILN_CONV_WEIGHTS_*: how `weights` (and the bias) are laid out */
} kiln_conv2d_params_t;

/* weights_layout values. OIHW: ONNX's [C_out][C_in/groups][k_d][k_h][k_w].
 * GEMM_BLOCKS: per group, the [C_out/groups][K] weight matrix (K = C_in/groups *
 * k_d * k_h * k_w) in blocks of four output channels, each [K][4] (channel i of the
 * block, reduction index r at 4r + i), the last block padded with zero channels;
 * for 1x1 convolutions and im2col (tile_rows > 0). DEPTHWISE_3X3: per channel ten
 * floats, the nine taps then the bias (the bias argument is not read); needs a
 * depthwise 3x3 geometry (kiln_f32_depthwise3x3_supported) and `scratch` of
 * 3 * ((w_out - 1) * stride_w + 3) floats. */
#define KILN_CONV_WEIGHTS_OIHW 0u
#define KILN_CONV_WEIGHTS_GEMM_BLOCKS 1u
#define KILN_CONV_WEIGHTS_DEPTHWISE_3X3 2u

kiln_status_t kiln_conv2d_f32(const kiln_conv2d_params_t* p, const float* in, const float* weights,
                              const float* bias, float* out, void* scratch);

/*
 * ONNX ConvTranspose over up to three spatial axes, NC[D]HW input, weights
 * I O/groups [D]HW (note: input channels first), optional bias. Every input element
 * scatters `x * w` to output position in * stride + k * dilation - pad_begin;
 * positions outside the output (cropped by pads or output_shape) are dropped.
 * Uses the kiln_conv2d_params_t geometry (pads are the leading pads).
 */
kiln_status_t kiln_conv_transpose_f32(const kiln_conv2d_params_t* p, const float* in, const float* weights,
                                      const float* bias, float* out);

/*
 * ONNX ConvInteger: int32 out = sum (x - x_zero_point) * (w - w_zero_point).
 * x and w are 8-bit, signed when x_signed / w_signed (int8) else uint8. Zero points
 * may be NULL (0); w_zero_point has one value, or one per output channel when
 * w_zp_per_channel. Direct loop (no scratch), same geometry as kiln_conv2d_f32;
 * tile_rows is ignored.
 */
typedef struct {
  kiln_conv2d_params_t geom;
  uint8_t x_signed, w_signed, w_zp_per_channel;
} kiln_conv_integer_params_t;
kiln_status_t kiln_conv_integer_s32(const kiln_conv_integer_params_t* p, const void* x, const void* x_zero_point,
                                    const void* w, const void* w_zero_point, int32_t* out);

/*
 * ONNX QLinearConv: the ConvInteger accumulator plus the int32 bias (may be NULL)
 * is requantized: y = saturate(round_half_even(acc * x_scale * w_scale / y_scale) + y_zero_point).
 * w_scale (and w_zero_point) have one value or one per output channel
 * (w_zp_per_channel / w_scale_per_channel). y is int8 when y_signed, else uint8.
 * `scratch` holds one int32 per output element (n * c_out * d_out * h_out * w_out).
 */
typedef struct {
  kiln_conv_integer_params_t conv;
  uint8_t w_scale_per_channel, y_signed;
} kiln_qlinear_conv_params_t;
kiln_status_t kiln_qlinear_conv(const kiln_qlinear_conv_params_t* p, const void* x, const float* x_scale,
                                const void* x_zero_point, const void* w, const float* w_scale,
                                const void* w_zero_point, const float* y_scale, const void* y_zero_point,
                                const int32_t* bias, void* y, void* scratch);

#ifdef __cplusplus
}
#endif

#endif /* KILN_CONV_H */
