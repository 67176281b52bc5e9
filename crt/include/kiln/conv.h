/* Convolution and transposed convolution. The output must not alias any input,
 * except as kiln_conv2d_f32 below allows. */
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
 *
 * Output over its input (n = 1), which the compiler uses when the input dies here
 * (generator/bufferize/overlap.h):
 *  - depthwise 3x3 (DEPTHWISE_3X3): the output may start anywhere at or below the
 *    input. Channels run in order, each plane top to bottom, and every input row is
 *    copied into the ring before any output row is written; output row oy of
 *    channel c ends at or below where input row oy * stride - pad_top + 3 of that
 *    channel begins (the output plane is no larger than the input plane, its rows no
 *    longer), and those rows are in the ring already.
 *  - 1x1 with GEMM_BLOCKS weights and tile_rows > 0 (groups = 1): tile_rows is then a
 *    number of columns (spatial positions); each tile of columns of every input
 *    channel is copied to `scratch` (c_in * tile_rows floats) before any output of
 *    those columns is written, so out may be at in + m * H*W floats for any integer
 *    m: output (o, j) then shares bytes only with input (o + m, j), already copied.
 * Both compute every output exactly as the non-overlapped call does.
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
  /* With im2col and GEMM_BLOCKS weights: when > 0, tiles are this many output
   * columns of one row (tile_rows must be 1) instead of whole rows, for a smaller
   * scratch (K * tile_cols floats) when RAM is short (--memory-priority ram). */
  uint32_t tile_cols;
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
 * out = Conv(in) + residual (same shape as out), each output computed exactly as
 * kiln_conv2d_f32 then one float addition, as a separate Add would. For the fused
 * Conv -> Add of residual blocks (generator/schedule/residual_fusion.h): groups = 1,
 * GEMM_BLOCKS weights, tile_rows > 0. `out` may be `residual` (each tile of the
 * convolution goes to scratch first, then residual is read before out is written);
 * it must not alias `in`. A 1x1 convolution takes tile_rows columns per tile and
 * scratch of c_out * tile_rows floats; any other, tile_rows output rows per tile and
 * scratch of (c_in * k_d * k_h * k_w + c_out) * tile_rows * w_out floats (im2col,
 * then the tile's result).
 */
/*
 * Patch-based execution of an inverted residual block (MobileNetV2):
 *   out = Conv1x1_project(Clip(DepthwiseConv3x3(Clip(Conv1x1_expand(in)))))
 * computed in bands of `band_rows` output rows, so the expanded tensor (c_exp
 * channels at the input's resolution) never exists whole: for each band, only the
 * expanded rows its depthwise taps read (band_rows * stride + 2 at most, the ones
 * shared with a neighbouring band computed again), then the band's depthwise rows,
 * then its projected rows. Every value is computed by the same code in the same
 * order as the three convolutions and two Clips run one after the other, so the
 * result is bit-identical. `dw` is the depthwise geometry (c_in = c_out = c_exp,
 * DEPTHWISE_3X3 packing, n = 1); expand / project weights are GEMM_BLOCKS; Clip as
 * kiln_clip_f32 (x < lo -> lo, then x > hi -> hi). scratch:
 * KILN_INVERTED_RESIDUAL_SCRATCH_FLOATS(p) floats. out must not alias in.
 */
typedef struct {
  kiln_conv2d_params_t dw;
  uint32_t c_in, c_out, band_rows;
  float lo1, hi1, lo2, hi2;
} kiln_inverted_residual_params_t;
#define KILN_INVERTED_RESIDUAL_SCRATCH_FLOATS(c_exp, w_in, w_out, stride, band_rows)                      \
  ((c_exp) * (((band_rows) - 1u) * (stride) + 3u) * (w_in) + 3u * (((w_out) - 1u) * (stride) + 3u) + \
   (c_exp) * (band_rows) * (w_out))
kiln_status_t kiln_inverted_residual_f32(const kiln_inverted_residual_params_t* p, const float* in,
                                         const float* w_expand, const float* b_expand, const float* dw_packed,
                                         const float* w_project, const float* b_project, float* out, void* scratch);

kiln_status_t kiln_conv2d_add_f32(const kiln_conv2d_params_t* p, const float* in, const float* weights,
                                  const float* bias, const float* residual, float* out, void* scratch);

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
