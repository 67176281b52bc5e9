/*
 * Float32 depthwise 3x3 convolution, stride 1 or 2, for Conv with group = C_in =
 * C_out (one input and one output channel per group), dilation 1 and leading pads
 * of 0 or 1.
 *
 * Each channel's weights and bias come packed by the compiler as ten floats
 * (w[ky][kx] row-major, then the bias), so one VLDM brings the whole filter. The
 * three input rows an output row reads are copied once each into a ring of three
 * zero-padded rows in `scratch`, so every output column (the padded borders
 * included) is computed by the same register tile: eight outputs (stride 1) or four
 * (stride 2) per step with all nine weights, the accumulators and the input row in
 * FPU registers, then four, then one. Every output sums its bias, then the taps in
 * (ky, kx) order, as the direct loop does.
 */
#ifndef KILN_DEPTHWISE3X3_F32_H
#define KILN_DEPTHWISE3X3_F32_H

#include "kiln/conv.h"

/* Floats of one padded row in the ring. */
#define KILN_DW3X3_ROW_LEN(w_out, stride) (((w_out) - 1u) * (stride) + 3u)

/* Whether kiln_f32_depthwise3x3 computes this geometry. */
int kiln_f32_depthwise3x3_supported(const kiln_conv2d_params_t* p);

/* One image: in [C][H][W], packed [C][10], out [C][H_out][W_out]; scratch holds
 * 3 * KILN_DW3X3_ROW_LEN(w_out, stride) floats. */
void kiln_f32_depthwise3x3(const kiln_conv2d_params_t* p, const float* in, const float* packed, float* out,
                           float* scratch);

#endif /* KILN_DEPTHWISE3X3_F32_H */
