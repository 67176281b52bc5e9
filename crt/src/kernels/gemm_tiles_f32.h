/*
 * Register-blocked float32 matrix products shared by Conv (1x1 and im2col), Gemm
 * and MatMul with constant weights.
 *
 * The weights are packed by the compiler in blocks of four output rows:
 * block b holds rows 4b..4b+3 as [k][4] (row i of the block, reduction index r at
 * wp[4 * r + i]), the last block padded with zero rows. One load then brings the
 * four weights every column of a step needs.
 *
 * On Arm cores with a single-precision FPU (VFPv4 and later: Cortex-M4F, M7, M33,
 * M55) the tiles are inline assembly: a VLDM of four to sixteen floats is one
 * instruction and each multiply-add is one VFMA, about 1.2 instructions per
 * multiply-add (0.5 with Helium). Elsewhere (the host, Cortex-M3) the same arithmetic in C.
 * KILN_F32_PORTABLE forces the C path. Every output sums its bias first, then
 * r = 0, 1, ..., k-1 (fused multiply-adds on the assembly path).
 */
#ifndef KILN_GEMM_TILES_F32_H
#define KILN_GEMM_TILES_F32_H

#include <stdint.h>

#if defined(__ARM_FP) && (__ARM_FP & 4) && defined(__thumb2__) && defined(__ARM_FEATURE_FMA) && \
    !defined(KILN_F32_PORTABLE)
#define KILN_F32_ASM 1
#else
#define KILN_F32_ASM 0
#endif

/* Helium (MVE with floating point: Cortex-M55): the 4x4 tile and the matrix-vector
 * product keep one output row (four columns) or the four outputs in a vector
 * register and multiply-add a whole vector by a weight in a core register. */
#if KILN_F32_ASM && defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2)
#define KILN_F32_MVE 1
#else
#define KILN_F32_MVE 0
#endif

/* Floats one packed block of four rows takes for reduction length k. */
#define KILN_F32_PACKED_BLOCK(k) (4u * (k))

/*
 * rows (1..4) output rows of one packed block over cols columns:
 *   out[i * out_stride + j] = bias[i] + sum_r wp[4r + i] * x[r * x_stride + j]
 * for i < rows, j < cols. bias may be NULL (0). x is [k][x_stride] (an NCHW
 * activation with x_stride = H*W, or an im2col matrix).
 */
void kiln_f32_gemm_block(const float* wp, const float* bias, uint32_t rows, const float* x, uint32_t x_stride,
                         uint32_t k, uint32_t cols, float* out, uint32_t out_stride);

/*
 * The same for one column of contiguous x (a matrix-vector product):
 *   y[i] = bias[i] + sum_r wp[4r + i] * x[r], i < rows.
 */
void kiln_f32_gemv_block(const float* wp, const float* bias, uint32_t rows, const float* x, uint32_t k, float* y);

#endif /* KILN_GEMM_TILES_F32_H */
