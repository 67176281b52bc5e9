/*
 * The int8 GEMM core on MVE (see s8_mve.h): for each block of four output
 * channels, the dot products of its four weight rows with one or two contiguous
 * int16 columns, 8 taps per step, then the requantization of the four channels in
 * vectors.
 *
 * The weights are the compiler's blocks of four rows with interleaved tap pairs
 * (requant_s8.h): 8 taps of a block are 64 bytes, tap pair j holding the four rows'
 * int16 pairs. VLD4 on 32-bit elements (VLD40..VLD43) deinterleaves them into four
 * vectors, one per row, each the row's 8 taps in order; VMLADAVA.S16 then adds 8
 * products of a column and a row into the row's int32 sum. Two columns x four rows
 * per step: 4 VLD4 + 2 VLDRH + 8 VMLADAVA for 64 multiply-accumulates. Rows of a
 * multiple of 8 taps (the common case) run through kiln_s8_mve_gemm_2x8, one asm
 * block per block of channels with fixed registers; other rows through
 * kiln_s8_mve_dot_2x4 / _1x4 and a scalar tail of 4 taps.
 */
#ifndef KILN_S8_MVE_GEMM_H
#define KILN_S8_MVE_GEMM_H

#include "s8_mve.h"
#include "s8_mve_2x4.h"

#if KILN_S8_MVE

/* The last 4 taps of a row whose length is 4 mod 8: two tap pairs of the four
 * rows' int16 pairs at wb, column values at c. */
#define KILN_S8_MVE_TAIL(a, c, wb, r) \
  ((a) += (c)[0] * (wb)[2 * (r)] + (c)[1] * (wb)[2 * (r) + 1] + (c)[2] * (wb)[8 + 2 * (r)] + (c)[3] * (wb)[9 + 2 * (r)])

/* s0[r] = column c0 . row r, s1[r] = column c1 . row r over row_len taps (a
 * multiple of 4). The 8-tap steps are one asm loop: VMLADAVA accumulates only into
 * even-numbered core registers and the compiler, left alone, spills one of eight
 * such accumulators inside the loop. Out of line: the loop takes twelve core
 * registers. */
static __attribute__((noinline)) void kiln_s8_mve_dot_2x4(const int16_t* c0, const int16_t* c1, const int16_t* wb,
                                                          int32_t row_len, int32x4_t* s0, int32x4_t* s1) {
  int32_t a00 = 0, a01 = 0, a02 = 0, a03 = 0, a10 = 0, a11 = 0, a12 = 0, a13 = 0;
  const int16_t* end = c0 + (row_len & ~7);
  if (c0 != end) {
    __asm__(
        "1:\n\t"
        "vld40.32 {q0, q1, q2, q3}, [%[w]]\n\t"
        "vld41.32 {q0, q1, q2, q3}, [%[w]]\n\t"
        "vld42.32 {q0, q1, q2, q3}, [%[w]]\n\t"
        "vld43.32 {q0, q1, q2, q3}, [%[w]]!\n\t"
        "vldrh.16 q4, [%[c0]], #16\n\t"
        "vldrh.16 q5, [%[c1]], #16\n\t"
        KILN_S8_MVE_2X4_MLA("s16")
        : [a00] "+Te"(a00), [a01] "+Te"(a01), [a02] "+Te"(a02), [a03] "+Te"(a03), [a10] "+Te"(a10),
          [a11] "+Te"(a11), [a12] "+Te"(a12), [a13] "+Te"(a13), [c0] "+r"(c0), [c1] "+r"(c1), [w] "+r"(wb)
        : [end] "r"(end)
        : "q0", "q1", "q2", "q3", "q4", "q5", "memory", "cc");
  }
  if (row_len & 4) {
    KILN_S8_MVE_TAIL(a00, c0, wb, 0), KILN_S8_MVE_TAIL(a01, c0, wb, 1);
    KILN_S8_MVE_TAIL(a02, c0, wb, 2), KILN_S8_MVE_TAIL(a03, c0, wb, 3);
    KILN_S8_MVE_TAIL(a10, c1, wb, 0), KILN_S8_MVE_TAIL(a11, c1, wb, 1);
    KILN_S8_MVE_TAIL(a12, c1, wb, 2), KILN_S8_MVE_TAIL(a13, c1, wb, 3);
  }
  *s0 = kiln_s8_mve_vector(a00, a01, a02, a03);
  *s1 = kiln_s8_mve_vector(a10, a11, a12, a13);
}

/* As kiln_s8_mve_dot_2x4 for one column. */
static __attribute__((noinline)) int32x4_t kiln_s8_mve_dot_1x4(const int16_t* c0, const int16_t* wb,
                                                               int32_t row_len) {
  int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
  int32_t k = 0;
  for (; k + 8 <= row_len; k += 8, wb += 32) {
    const int32x4x4_t r = vld4q_s32((const int32_t*)(const void*)wb);
    const int16x8_t x0 = vld1q_s16(c0 + k);
    a0 = vmladavaq_s16(a0, x0, vreinterpretq_s16_s32(r.val[0]));
    a1 = vmladavaq_s16(a1, x0, vreinterpretq_s16_s32(r.val[1]));
    a2 = vmladavaq_s16(a2, x0, vreinterpretq_s16_s32(r.val[2]));
    a3 = vmladavaq_s16(a3, x0, vreinterpretq_s16_s32(r.val[3]));
  }
  if (k < row_len) {
    KILN_S8_MVE_TAIL(a0, c0 + k, wb, 0), KILN_S8_MVE_TAIL(a1, c0 + k, wb, 1);
    KILN_S8_MVE_TAIL(a2, c0 + k, wb, 2), KILN_S8_MVE_TAIL(a3, c0 + k, wb, 3);
  }
  return kiln_s8_mve_vector(a0, a1, a2, a3);
}

/*
 * One block of four channels (at w, bias, rq, y0, y1) for two columns c0, c1 of
 * row_len int16 (a multiple of 8), `live` its channels (a constant 0xFFFF for
 * full blocks). One asm block: the 8-tap loop, then the eight sums moved into two
 * vectors (lane r of s0 / s1: column c0 / c1 . row r).
 */
KILN_S8_INLINE void kiln_s8_mve_block_2x8(const int16_t* c0, const int16_t* c1, const int16_t* c0_end,
                                          const int16_t* wb, const int32_t* bias, const kiln_s8_requant_t* rq,
                                          const kiln_s8_mve_output_t* m, int8_t* y0, int8_t* y1, mve_pred16_t live) {
  KILN_S8_MVE_2X4_REGISTERS(int16_t, c0, c1, wb, c0_end); /* pinned: see s8_mve_2x4.h */
  int32x4_t s0, s1, b;
  kiln_s8_mve_rq4_t q;
  __asm__(KILN_S8_MVE_2X4_ZERO
          "1:\n\t"
          "vld40.32 {q0, q1, q2, q3}, [%[w]]\n\t"
          "vld41.32 {q0, q1, q2, q3}, [%[w]]\n\t"
          "vld42.32 {q0, q1, q2, q3}, [%[w]]\n\t"
          "vld43.32 {q0, q1, q2, q3}, [%[w]]!\n\t"
          "vldrh.16 q4, [%[c0]], #16\n\t"
          "vldrh.16 q5, [%[c1]], #16\n\t"
          KILN_S8_MVE_2X4_MLA("s16") KILN_S8_MVE_2X4_TO_VECTORS
              KILN_S8_MVE_2X4_OPERANDS(s0, s1));
  if (bias == NULL)
    b = vdupq_n_s32(0);
  else
    b = KILN_S8_MVE_ALL(live) ? vld1q_s32(bias) : vldrwq_z_s32(bias, live);
  q = kiln_s8_mve_rq4(rq, m, live);
  kiln_s8_mve_store(vaddq_s32(s0, b), &q, m, live, y0);
  kiln_s8_mve_store(vaddq_s32(s1, b), &q, m, live, y1);
}

/* Two columns c0, c1 of row_len int16 (a multiple of 8) x n_out output channels,
 * outputs to y0 and y1: the full blocks, then the partial one. Out of line: the
 * asm takes twelve core registers. */
static __attribute__((noinline)) void kiln_s8_mve_gemm_2x8(const int16_t* c0, const int16_t* c1, int32_t row_len,
                                                           const int16_t* w, const int32_t* bias,
                                                           const kiln_s8_requant_t* rq, int32_t n_out,
                                                           const kiln_s8_mve_output_t* m, int8_t* y0, int8_t* y1) {
  const int16_t* c0_end = c0 + row_len;
  int32_t oc;
  for (oc = 0; oc + 4 <= n_out; oc += 4)
    kiln_s8_mve_block_2x8(c0, c1, c0_end, w + oc * row_len, bias != NULL ? bias + oc : NULL, rq + oc, m, y0 + oc,
                          y1 + oc, 0xFFFF);
  if (oc < n_out)
    kiln_s8_mve_block_2x8(c0, c1, c0_end, w + oc * row_len, bias != NULL ? bias + oc : NULL, rq + oc, m, y0 + oc,
                          y1 + oc, vctp32q((uint32_t)(n_out - oc)));
}

/*
 * The GEMM core on contiguous columns: n_out output channels (weights in blocks
 * of four, bias and rq of those channels) for column c0 and, when y1 != NULL,
 * column c1 (both row_len int16); outputs to y0[0..n_out) and y1[0..n_out).
 */
static inline void kiln_s8_mve_gemm(const int16_t* c0, const int16_t* c1, int32_t row_len, const int16_t* w,
                                    const int32_t* bias, const kiln_s8_requant_t* rq, int32_t n_out,
                                    const kiln_s8_mve_output_t* m, int8_t* y0, int8_t* y1) {
  int32_t oc;
  if (y1 != NULL && row_len % 8 == 0) {
    kiln_s8_mve_gemm_2x8(c0, c1, row_len, w, bias, rq, n_out, m, y0, y1);
    return;
  }
  for (oc = 0; oc < n_out; oc += 4) {
    const mve_pred16_t live = vctp32q((uint32_t)(n_out - oc));
    const int16_t* wblock = w + (int64_t)oc * row_len;
    const int32x4_t b = bias != NULL ? vldrwq_z_s32(bias + oc, live) : vdupq_n_s32(0);
    const kiln_s8_mve_rq4_t q = kiln_s8_mve_rq4(rq + oc, m, live);
    if (y1 != NULL) {
      int32x4_t s0, s1;
      kiln_s8_mve_dot_2x4(c0, c1, wblock, row_len, &s0, &s1);
      kiln_s8_mve_store(vaddq_s32(s0, b), &q, m, live, y0 + oc);
      kiln_s8_mve_store(vaddq_s32(s1, b), &q, m, live, y1 + oc);
    } else {
      kiln_s8_mve_store(vaddq_s32(kiln_s8_mve_dot_1x4(c0, wblock, row_len), b), &q, m, live, y0 + oc);
    }
  }
}

#endif /* KILN_S8_MVE */

#endif /* KILN_S8_MVE_GEMM_H */
