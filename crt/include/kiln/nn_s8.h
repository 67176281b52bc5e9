/*
 * Integer (int8) convolution, depthwise convolution and fully connected layers of
 * quantized models (docs/quantization.md): NHWC int8 activations, int16 weights
 * the compiler widened and laid out for the inner loop, int32 bias, and a
 * per-output-channel requantization computed at compile time.
 *
 * Every kernel computes, per output element of channel c,
 *   acc = bias[c] + sum over taps of (x + input_offset) * w      (int32, exact)
 *   y   = clamp(output_offset + requant(acc, rq[c]), act_min, act_max)
 * where input_offset = -x_zero_point and a padded tap contributes 0. requant is
 * TFLite's MultiplyByQuantizedMultiplier, bit for bit (see kiln_s8_requant_t).
 *
 * The instruction-set path is chosen when the library is compiled: portable C,
 * the Arm DSP extension (__ARM_FEATURE_DSP: SXTAB16 + SMLAD) or MVE
 * (__ARM_FEATURE_MVE). All paths give identical results. The output must not
 * alias any input. Weights, bias and requantization parameters are read-only and
 * may live in flash.
 */
#ifndef KILN_NN_S8_H
#define KILN_NN_S8_H

#include "kiln/kernel_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Requantization of one output channel, precomputed by the compiler from TFLite's
 * Q31 multiplier M and shift S (real scale = M * 2^(S - 31)), in two exactly equal
 * forms of MultiplyByQuantizedMultiplier:
 *
 * - general (any S): (acc * multiplier + (acc < 0 ? round_neg : round_pos)) >> shift
 *   in 64 bits (arithmetic shift). With S >= 0: shift = 31 - S and
 *   round_pos = round_neg = 2^(30 - S); with S < 0 (e = -S): shift = 31 + e,
 *   round_pos = 2^30 + 2^(30 + e), round_neg = round_pos - 2^31. This folds the
 *   double rounding of SaturatingRoundingDoublingHighMul then RoundingDivideByPOT
 *   into one rounding (a product that would saturate TFLite's int32 left shift
 *   clamps to the same act bound).
 * - short, the output offset included (S < 0, exponent <= 22 and |acc| < 2^30,
 *   which the kernels check per call from the bias and the number of taps):
 *     output_offset + requant(acc) =
 *       ((2 * acc * multiplier + 2^31) >> 32) + (acc < 0 ? -1 : 0) + round_offset) >> exponent
 *   with round_offset = 2^(exponent - 1) + (output_offset << exponent). The first
 *   term is SaturatingRoundingDoublingHighMul (exact for |acc| < 2^30); the rest is
 *   RoundingDivideByPOT (ties away from zero) with the offset added before the
 *   shift, which is exact because it is a multiple of 2^exponent. TFLite corrects
 *   by the sign of the product x, not of acc: they differ only where x = 0, and
 *   there both give 0 since 2^(exponent - 1) - 1 < 2^exponent. On Arm the product
 *   and the addition are one SMMLAR. A kernel uses the short form only when every
 *   channel's round_offset matches its output_offset.
 *
 * The compiler stores the array as little-endian bytes; 32 bytes per channel,
 * 8-byte aligned.
 */
typedef struct {
  int32_t multiplier;     /* M, in [2^30, 2^31) or 0 */
  int32_t round_offset;   /* 2^(exponent - 1) + (output_offset << exponent), or 0 (exponent 0 or > 22) */
  int32_t exponent;       /* -S when S < 0, else 0 (the short form needs >= 1) */
  int32_t shift;          /* total right shift of the general form, 1..62 */
  int64_t round_pos;
  int64_t round_neg;
} kiln_s8_requant_t;

/*
 * Weight layout of kiln_conv2d_s8 and kiln_fully_connected_s8: int16, one row per
 * output channel of KILN_S8_ROW_LEN(taps) values: the taps in (kh, kw, c) order
 * (OHWI) followed by zeros up to a multiple of 4; rows in blocks of four (the last
 * padded with zero rows) with interleaved tap pairs, see
 * crt/src/kernels/s8/requant_s8.h. Weights and scratch must be 4-byte aligned.
 */
#define KILN_S8_ROW_LEN(taps) ((((taps) + 3u) / 4u) * 4u)

/*
 * Conv2D, NHWC input [batch, in_h, in_w, in_c], output [batch, out_h, out_w, out_c],
 * groups >= 1 (in_c and out_c divisible by it; output channel oc belongs to group
 * oc / (out_c / groups)). Weights: out_c rows of KILN_S8_ROW_LEN(kernel_h * kernel_w
 * * in_c / groups) int16 (see above). bias may be NULL (0). rq has out_c entries.
 * scratch (int16-aligned, 4-byte aligned) holds the im2col columns of two output
 * pixels: 2 * KILN_S8_ROW_LEN(taps) int16 (kiln_conv2d_s8_scratch_bytes).
 * pad_top / pad_left are the leading pads; trailing pads follow from out_h / out_w.
 */
typedef struct {
  int32_t batch, in_h, in_w, in_c;
  int32_t out_h, out_w, out_c;
  int32_t kernel_h, kernel_w;
  int32_t stride_h, stride_w;
  int32_t dilation_h, dilation_w;
  int32_t pad_top, pad_left;
  int32_t groups;
  int32_t input_offset;  /* -x_zero_point, in [-127, 128] */
  int32_t output_offset; /* y_zero_point */
  int32_t act_min, act_max;
} kiln_conv2d_s8_params_t;

kiln_status_t kiln_conv2d_s8(const kiln_conv2d_s8_params_t* p, const int8_t* x, const int16_t* w,
                             const int32_t* bias, const kiln_s8_requant_t* rq, int8_t* y, int16_t* scratch);
/* The same with an NCHW input [batch, in_c, in_h, in_w] (one group; the output is
 * NHWC): a network's first convolution reading the caller's layout. */
kiln_status_t kiln_conv2d_s8_nchw(const kiln_conv2d_s8_params_t* p, const int8_t* x, const int16_t* w,
                                  const int32_t* bias, const kiln_s8_requant_t* rq, int8_t* y, int16_t* scratch);

/*
 * Depthwise Conv2D, NHWC, out_c = in_c * depth_multiplier; output channel oc reads
 * input channel oc / depth_multiplier. Weights int16 in blocks of four output
 * channels, each block tap by tap: w[(oc / 4) * kh * kw * 4 + (ky * kernel_w + kx) * 4
 * + oc % 4] (the last block zero padded); 4-byte aligned. bias may be NULL. No scratch.
 */
typedef struct {
  int32_t batch, in_h, in_w, in_c;
  int32_t out_h, out_w, out_c;
  int32_t kernel_h, kernel_w;
  int32_t stride_h, stride_w;
  int32_t dilation_h, dilation_w;
  int32_t pad_top, pad_left;
  int32_t depth_multiplier;
  int32_t input_offset;
  int32_t output_offset;
  int32_t act_min, act_max;
} kiln_depthwise_conv2d_s8_params_t;

kiln_status_t kiln_depthwise_conv2d_s8(const kiln_depthwise_conv2d_s8_params_t* p, const int8_t* x,
                                       const int16_t* w, const int32_t* bias, const kiln_s8_requant_t* rq,
                                       int8_t* y);

/*
 * Fully connected: x [rows, in_features] -> y [rows, out_features]. Weights: out_features
 * rows of KILN_S8_ROW_LEN(in_features) int16. bias may be NULL. scratch holds
 * 2 * KILN_S8_ROW_LEN(in_features) int16 (two input rows widened).
 */
typedef struct {
  int32_t rows, in_features, out_features;
  int32_t input_offset;
  int32_t output_offset;
  int32_t act_min, act_max;
} kiln_fully_connected_s8_params_t;

kiln_status_t kiln_fully_connected_s8(const kiln_fully_connected_s8_params_t* p, const int8_t* x,
                                      const int16_t* w, const int32_t* bias, const kiln_s8_requant_t* rq,
                                      int8_t* y, int16_t* scratch);

/*
 * The int8-weight form of Conv2D and FullyConnected (the compiler emits it for
 * targets with MVE, where VMLADAVA.S8 multiplies 16 int8 pairs per instruction):
 * same parameters and results as kiln_conv2d_s8 / kiln_fully_connected_s8, but
 * - weights int8, one row per output channel of KILN_S8_ROW_LEN8(taps) values (the
 *   taps in (kh, kw, c) order, zeros after), rows in blocks of four (the last
 *   padded with zero rows), each block as 16-tap chunks of its four rows one after
 *   another: block[j * 64 + r * 16 + t] = row r, tap 16 * j + t. Conv2D groups
 *   follow each other as with the int16 form.
 * - `kernel_bias` (never NULL) is bias[c] + input_offset * (sum of row c's
 *   weights), computed by the compiler; the kernels multiply the raw int8 inputs
 *   (a padded tap takes the input zero point, -input_offset, so that it adds 0).
 * - scratch: two im2col columns / input rows of KILN_S8_ROW_LEN8(taps) int8
 *   (2 * KILN_S8_ROW_LEN8 bytes), 4-byte aligned; weights 4-byte aligned.
 */
#define KILN_S8_ROW_LEN8(taps) ((((taps) + 15u) / 16u) * 16u)

kiln_status_t kiln_conv2d_s8_w8(const kiln_conv2d_s8_params_t* p, const int8_t* x, const int8_t* w,
                                const int32_t* kernel_bias, const kiln_s8_requant_t* rq, int8_t* y, int8_t* scratch);

kiln_status_t kiln_fully_connected_s8_w8(const kiln_fully_connected_s8_params_t* p, const int8_t* x,
                                         const int8_t* w, const int32_t* kernel_bias, const kiln_s8_requant_t* rq,
                                         int8_t* y, int8_t* scratch);

/*
 * The compact form of Conv2D and FullyConnected (the compiler emits it on targets
 * without MVE for the layers a sized parameter pool needs small: docs/performance.md,
 * "Flash as a budget"): the int8-weight form above, each channel's
 * requantization given as TFLite's two int32 {multiplier, shift} (qm[2 * c],
 * qm[2 * c + 1]; 8 bytes instead of kiln_s8_requant_t's 32), which the kernel
 * expands into that record's fields. Same results as the int8-weight form.
 */
kiln_status_t kiln_conv2d_s8_w8q(const kiln_conv2d_s8_params_t* p, const int8_t* x, const int8_t* w,
                                 const int32_t* kernel_bias, const int32_t* qm, int8_t* y, int8_t* scratch);

kiln_status_t kiln_fully_connected_s8_w8q(const kiln_fully_connected_s8_params_t* p, const int8_t* x,
                                          const int8_t* w, const int32_t* kernel_bias, const int32_t* qm, int8_t* y,
                                          int8_t* scratch);

/*
 * The packed form of Conv2D (groups 1) and FullyConnected for the DSP path (the
 * compiler emits it for Cortex-M4 / M7 / M33 when every output channel has the
 * short requantization of kiln_s8_requant_t (exponent in [1, 22] and |bias| +
 * taps * 255 * 128 < 2^30), the bias is constant and the clamp is the whole int8
 * range): the same parameters and results as kiln_conv2d_s8 /
 * kiln_fully_connected_s8, every constant of a block of four output channels in
 * one stream that the kernel reads front to back:
 *   int32 2 * bias[c]                                   (4 values)
 *   int16 2 * w, the block layout of the int16 form      (4 * KILN_S8_ROW_LEN(taps) values)
 *   int32 multiplier, round_offset, exponent of each channel (kiln_s8_requant_t; 12 values)
 * the last block padded with zero channels. Doubling the weights and the bias
 * gives the kernel 2 * acc, the operand of the rounding high multiply. Scratch
 * and the stream 4-byte aligned; scratch holds KILN_S8_PK_COLS(row_len) columns
 * of row_len = KILN_S8_ROW_LEN(taps) int16 (KILN_S8_PK_SCRATCH_BYTES; the kernel
 * widens that many pixels or rows, then runs every block over them in one call).
 * act_min / act_max must be -128 / 127.
 */
#define KILN_S8_PK_COLS(row_len) ((row_len) >= 256u ? 1u : 256u / (row_len) > 16u ? 16u : 256u / (row_len))
#define KILN_S8_PK_SCRATCH_BYTES(taps) \
  (KILN_S8_PK_COLS(KILN_S8_ROW_LEN(taps)) * KILN_S8_ROW_LEN(taps) * 2u)
kiln_status_t kiln_conv2d_s8_pk(const kiln_conv2d_s8_params_t* p, const int8_t* x, const int32_t* packed, int8_t* y,
                                int16_t* scratch);

/*
 * kiln_conv2d_s8_pk for a convolution of few input channels (a network's first
 * layer; dilation 1, stride_w * kernel_h * in_c even): the taps of each packed row
 * in (kx, ky, c) order instead of (ky, kx, c). Per output row the kernel widens
 * the strip of input columns the windows reach, kernel_h rows of in_c values per
 * column, once; a pixel's column is then a slice of the strip, read in place.
 * scratch: KILN_S8_PK_STRIP_BYTES int16-aligned bytes (4-byte aligned).
 */
#define KILN_S8_PK_STRIP_BYTES(out_w, stride_w, kernel_w, kernel_h, in_c) \
  ((((out_w) - 1u) * (stride_w) + (kernel_w)) * (kernel_h) * (in_c) * 2u + 8u)

kiln_status_t kiln_conv2d_s8_pk_strip(const kiln_conv2d_s8_params_t* p, const int8_t* x, const int32_t* packed,
                                      int8_t* y, int16_t* scratch);
/* The same with an NCHW input [batch, in_c, in_h, in_w] (the output is NHWC). */
kiln_status_t kiln_conv2d_s8_pk_strip_nchw(const kiln_conv2d_s8_params_t* p, const int8_t* x, const int32_t* packed,
                                           int8_t* y, int16_t* scratch);

kiln_status_t kiln_fully_connected_s8_pk(const kiln_fully_connected_s8_params_t* p, const int8_t* x,
                                         const int32_t* packed, int8_t* y, int16_t* scratch);

/*
 * The pair form of a pointwise Conv2D (1x1, stride 1, no padding, one group,
 * in_c a multiple of 4, out_c even; the compiler emits it for the targets and
 * conditions of the packed form): the kernel widens two pixels at a time into one
 * interleaved column and computes two output channels of both pixels per pass
 * over the taps (a 2x2 register block). Per pair of output channels c, c + 1 the
 * stream holds
 *   int32 2 * bias[c], 2 * bias[c + 1], 2 * bias[c], 2 * bias[c + 1]   (4 values)
 *   int16 2 * w, per four taps k..k+3 of channel c the values of taps k, k+2,
 *         k+1, k+3, then the same of channel c + 1          (2 * in_c values)
 *   int32 multiplier, round_offset, exponent of c, then of c + 1         (6 values)
 * (KILN_S8_PW_PAIR_WORDS(in_c) words). Scratch: KILN_S8_PW_SCRATCH_BYTES(in_c),
 * 4-byte aligned: KILN_S8_PW_COLS(in_c) pixels' columns (an odd last pixel is
 * widened twice and computed as a pair with itself). act_min / act_max must be
 * -128 / 127. Same results as kiln_conv2d_s8.
 */
#define KILN_S8_PW_PAIR_WORDS(in_c) (10u + (in_c))
#define KILN_S8_PW_COLS(in_c) (KILN_S8_PK_COLS(in_c) < 2u ? 2u : KILN_S8_PK_COLS(in_c) / 2u * 2u)
#define KILN_S8_PW_SCRATCH_BYTES(in_c) (KILN_S8_PW_COLS(in_c) * (in_c) * 2u)
kiln_status_t kiln_conv2d_s8_pw(const kiln_conv2d_s8_params_t* p, const int8_t* x, const int32_t* packed, int8_t* y,
                                int16_t* scratch);

/*
 * The packed form of depthwise Conv2D (depth multiplier 1, channels a multiple of
 * 4; the compiler emits it for the same targets and conditions as the packed
 * Conv2D, for 3x3 kernels): per block of four channels
 *   int32 2 * bias[c]                                       (4 values)
 *   int16 2 * w, per tap the block's four channels            (4 * kernel_h * kernel_w values)
 *   int32 multiplier, round_offset, exponent of each channel  (12 values)
 * scratch: KILN_S8_DW_PK_SCRATCH_BYTES(p), 4-byte aligned: for a 3x3 kernel of
 * stride_w 1 and dilation 1 on rows of at least 8 outputs (KILN_S8_DW_PK_PLANAR;
 * on shorter rows the per-row work costs more than it saves) a ring of three widened input
 * rows of four channels (24 * KILN_S8_DW_PK_ROW(out_w) bytes), else kernel_h *
 * kernel_w * in_c bytes (a border pixel's window). Same results as
 * kiln_depthwise_conv2d_s8.
 */
#define KILN_S8_DW_PK_PLANAR(p)                                                                      \
  ((p)->kernel_h == 3 && (p)->kernel_w == 3 && (p)->stride_w == 1 && (p)->dilation_h == 1 &&        \
   (p)->dilation_w == 1 && (p)->out_w >= 8)
#define KILN_S8_DW_PK_ROW(out_w) (4u * (((uint32_t)(out_w) + 3u) / 4u) + 2u)
#define KILN_S8_DW_PK_SCRATCH_BYTES(p)                              \
  (KILN_S8_DW_PK_PLANAR(p) ? 24u * KILN_S8_DW_PK_ROW((p)->out_w)    \
                           : (uint32_t)((p)->kernel_h * (p)->kernel_w * (p)->in_c))
kiln_status_t kiln_depthwise_conv2d_s8_pk(const kiln_depthwise_conv2d_s8_params_t* p, const int8_t* x,
                                          const int32_t* packed, int8_t* y, int8_t* scratch);

#ifdef __cplusplus
}
#endif

#endif /* KILN_NN_S8_H */
