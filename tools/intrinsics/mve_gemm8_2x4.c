/*
 * The Cortex-M55 int8 GEMM's two-column block (kiln_s8_mve_block8_2x4,
 * crt/src/kernels/s8/s8_mve_gemm8.h: six VLDRB and eight VMLADAVA.S8 a pass in one
 * asm loop, its registers pinned, s8_mve_2x4.h) against the same block in
 * arm_mve.h intrinsics, the way its one-column sibling kiln_s8_mve_block8_1x4 is
 * written. Compiled for the Cortex-M55 (the file name starts with mve_).
 */
#include <arm_mve.h>
#include <stdint.h>

#include "s8/s8_mve_gemm8.h"

/* The runtime's block under a name the script reads. */
void gemm8_2x4_asm(const int8_t* c0, const int8_t* c1, int32_t row_len8, const int8_t* wb, const int32_t* bias,
                   const kiln_s8_requant_t* rq, const kiln_s8_mve_output_t* m, int8_t* y0, int8_t* y1) {
  kiln_s8_mve_block8_2x4(c0, c1, c0 + row_len8, wb, bias, rq, m, y0, y1, 0xFFFF, 0);
}

/* The eight sums only: the loop is what differs. */
void gemm8_2x4_acle(const int8_t* c0, const int8_t* c1, int32_t row_len8, const int8_t* wb, int32_t* sums) {
  int32_t a00 = 0, a01 = 0, a02 = 0, a03 = 0, a10 = 0, a11 = 0, a12 = 0, a13 = 0, k;
  for (k = 0; k < row_len8; k += 16, wb += 64) {
    const int8x16_t x0 = vldrbq_s8(c0 + k), x1 = vldrbq_s8(c1 + k);
    const int8x16_t w0 = vldrbq_s8(wb), w1 = vldrbq_s8(wb + 16), w2 = vldrbq_s8(wb + 32), w3 = vldrbq_s8(wb + 48);
    a00 = vmladavaq_s8(a00, x0, w0);
    a10 = vmladavaq_s8(a10, x1, w0);
    a01 = vmladavaq_s8(a01, x0, w1);
    a11 = vmladavaq_s8(a11, x1, w1);
    a02 = vmladavaq_s8(a02, x0, w2);
    a12 = vmladavaq_s8(a12, x1, w2);
    a03 = vmladavaq_s8(a03, x0, w3);
    a13 = vmladavaq_s8(a13, x1, w3);
  }
  sums[0] = a00, sums[1] = a01, sums[2] = a02, sums[3] = a03;
  sums[4] = a10, sums[5] = a11, sums[6] = a12, sums[7] = a13;
}
