/*
 * Private helpers of the packed int8 kernels (conv_s8_pk.c): the GEMM core over
 * the packed stream of kiln_conv2d_s8_pk / kiln_fully_connected_s8_pk (nn_s8.h).
 *
 * A packed block (four output channels) is
 *   int32 2 * bias[4]
 *   int16 2 * weights, KILN_S8_ROW_LEN(taps) per row, the block layout of the
 *         int16 form (per tap pair the four rows' pairs, requant_s8.h)
 *   int32 { multiplier, round_offset, exponent }[4]
 * so the DSP path reads one block front to back: LDM of the bias into the four
 * accumulators, the dot products (per two tap pairs an LDRD of the column, two
 * LDM of weights, eight SMLAD), then per two outputs one LDM of their
 * requantization constants and SMMLAR, ASR, SSAT each. The doubled weights and
 * bias give 2 * acc, the operand SMMLAR needs (no LSL per output).
 *
 * Output of one channel (acc2 = 2 * acc, |acc| < 2^30, exponent in [1, 22], both
 * guaranteed by the compiler): ssat8((SMMLAR(acc2, M, round_offset + corr)) >> e)
 * with corr = (acc2 < 0 ? -1 : 0), which is kiln_s8_requant_short plus the clamp
 * to [-128, 127]. When the output zero point is -128 the correction is left out:
 * for acc < 0 the value before the shift is at most round_offset + 0, whose shift
 * is at most the zero point, with or without the -1, and both clamp to -128.
 */
#ifndef KILN_PK_S8_H
#define KILN_PK_S8_H

#include "../asm_guard.h"
#include "requant_s8.h"

/* Words of one packed block of a row length. */
#define KILN_S8_PK_BLOCK_WORDS(row_len) (4 + 2 * (row_len) + 12)

/* One output of the packed form (portable C; the DSP asm does the same with SMMLAR). */
static inline int8_t kiln_s8_pk_out(int32_t acc2, const int32_t* rq, int corr) {
  const int32_t x = (int32_t)(((int64_t)acc2 * rq[0] + ((int64_t)1 << 31)) >> 32);
  int32_t v = (x + rq[1] + (corr && acc2 < 0 ? -1 : 0)) >> rq[2];
  v = v < -128 ? -128 : v;
  return (int8_t)(v > 127 ? 127 : v);
}

/* Blocks [0, n_blocks) of one column (row_len int16 at col), outputs y[0, 4 * n_blocks). */
static inline void kiln_s8_pk_blocks_c(const int16_t* col, const int32_t* wp, int8_t* y, int32_t n_blocks,
                                       int32_t row_len, int corr) {
  int32_t b, r;
  for (b = 0; b < n_blocks; ++b, y += 4) {
    int32_t a[4];
    const int16_t* w = (const int16_t*)(const void*)(wp + 4);
    const int16_t* c = col;
    const int32_t* rq = wp + 4 + 2 * row_len;
    for (r = 0; r < 4; ++r) a[r] = wp[r];
    for (; c < col + row_len; c += 2, w += 8)
      for (r = 0; r < 4; ++r) a[r] += c[0] * w[2 * r] + c[1] * w[2 * r + 1];
    for (r = 0; r < 4; ++r) y[r] = kiln_s8_pk_out(a[r], rq + 3 * r, corr);
    wp += KILN_S8_PK_BLOCK_WORDS(row_len);
  }
}

#if KILN_S8_DSP && defined(__GNUC__)
/*
 * The DSP path of kiln_s8_pk_blocks_c over n_cols columns, one asm function per
 * form (corr 0 / 1): r0 first column, r1 stream, r2 y, r3 -> { 2 * row_len,
 * n_blocks, n_cols, column step in bytes } (n_blocks, n_cols >= 1; the outputs of
 * the columns follow each other, 4 * n_blocks bytes apart). Registers: r0-r3
 * accumulators, r4/r5 a column word pair, r6 column pointer, r7 stream, r8-r11
 * weight words, r12 column end, lr outputs; on the stack the column, the output
 * end of the column, the entry of the dot-product loop (a Duff's device: the loop
 * does 64 taps per pass in sixteen 44-byte steps, a row of 4 * k taps enters at
 * step (16 - k % 16) % 16; the loop test is 2 instructions per 64 taps), the
 * stream, the columns left, the column step, 2 * row_len and 4 * n_blocks.
 */
#define KILN_PK_STEP                      \
  "ldrd r4, r5, [r6], #8\n\t"             \
  "ldmia.w r7!, {r8, r9, r10, r11}\n\t"   \
  "smlad r0, r4, r8, r0\n\t"              \
  "smlad r1, r4, r9, r1\n\t"              \
  "smlad r2, r4, r10, r2\n\t"             \
  "smlad r3, r4, r11, r3\n\t"             \
  "ldmia.w r7!, {r8, r9, r10, r11}\n\t"   \
  "smlad r0, r5, r8, r0\n\t"              \
  "smlad r1, r5, r9, r1\n\t"              \
  "smlad r2, r5, r10, r2\n\t"             \
  "smlad r3, r5, r11, r3\n\t"
#define KILN_PK_STEP4 KILN_PK_STEP KILN_PK_STEP KILN_PK_STEP KILN_PK_STEP
#define KILN_PK_RQ2(a, b, corr)                    \
  "ldmia.w r7!, {r4, r5, r6, r8, r9, r10}\n\t"     \
  corr("r5", a) corr("r9", b)                      \
  "smmlar " a ", " a ", r4, r5\n\t"                \
  "asr.w " a ", " a ", r6\n\t"                     \
  "ssat " a ", #8, " a "\n\t"                      \
  "smmlar " b ", " b ", r8, r9\n\t"                \
  "asr.w " b ", " b ", r10\n\t"                    \
  "ssat " b ", #8, " b "\n\t"
#define KILN_PK_CORR1(r, a) "add " r ", " r ", " a ", asr #31\n\t"
#define KILN_PK_CORR0(r, a)
/* Register contract: an AAPCS function the compiler calls (noinline) but does not
 * frame (naked). In: r0 first column, r1 the stream, r2 y, r3 ctl (int32 ctl[4], read only). It pushes r4-r11 and lr first and returns by
 * popping them with pc, so r4-r11, lr's return address and sp are as on entry;
 * r0-r3, r12 and the flags are clobbered (caller-saved); no FPU or MVE register
 * is used and nothing is called. Stack: 68 bytes (36 pushed + 32 of locals).
 * Writes: y only. */
#define KILN_PK_UNUSED __attribute__((unused))
#define KILN_PK_BLOCKS_ASM(name, corr)                                                                     \
  __attribute__((naked, noinline, unused)) static void name(                                                 \
      KILN_PK_UNUSED const int16_t* col, KILN_PK_UNUSED const int32_t* wp, KILN_PK_UNUSED int8_t* y,          \
      KILN_PK_UNUSED const int32_t* ctl) {                                                                   \
    __asm__ volatile(                                                                                      \
        "push {r4-r11, lr}\n\t"                                                                            \
        "sub sp, sp, #32\n\t"                                                                              \
        "ldm r3, {r4, r5, r6, r7}\n\t"                                                                      \
        "str r0, [sp]\n\t"                                                                                 \
        "str r1, [sp, #12]\n\t"                                                                            \
        "str r6, [sp, #16]\n\t"                                                                            \
        "str r7, [sp, #20]\n\t"                                                                            \
        "str r4, [sp, #24]\n\t"                                                                            \
        "lsls r5, r5, #2\n\t"                                                                              \
        "str r5, [sp, #28]\n\t"                                                                            \
        "lsrs r4, r4, #3\n\t"                                                                              \
        "negs r4, r4\n\t"                                                                                  \
        "and r4, r4, #15\n\t"                                                                              \
        "movs r5, #44\n\t"                                                                                 \
        "muls r4, r5, r4\n\t"                                                                              \
        "adr.w r5, 2f\n\t"                                                                                 \
        "add r4, r4, r5\n\t"                                                                               \
        "orr r4, r4, #1\n\t"                                                                               \
        "str r4, [sp, #8]\n\t"                                                                             \
        "mov lr, r2\n"                                                                                      \
        "3:\n\t"                                                                                           \
        "ldr r4, [sp]\n\t"                                                                                 \
        "ldr r5, [sp, #24]\n\t"                                                                            \
        "add r12, r4, r5\n\t"                                                                              \
        "ldr r5, [sp, #28]\n\t"                                                                            \
        "add r5, lr, r5\n\t"                                                                               \
        "str r5, [sp, #4]\n\t"                                                                             \
        "ldr r7, [sp, #12]\n"                                                                               \
        "1:\n\t"                                                                                           \
        "ldmia r7!, {r0, r1, r2, r3}\n\t"                                                                  \
        "ldr r6, [sp]\n\t"                                                                                 \
        "ldr pc, [sp, #8]\n\t"                                                                             \
        ".balign 4\n"                                                                                       \
        "2:\n\t" KILN_PK_STEP4 KILN_PK_STEP4 KILN_PK_STEP4 KILN_PK_STEP4                                   \
        "cmp r6, r12\n\t"                                                                                  \
        "bne 2b\n\t" KILN_PK_RQ2("r0", "r1", corr) KILN_PK_RQ2("r2", "r3", corr)                          \
        "strb r0, [lr], #1\n\t"                                                                            \
        "strb r1, [lr], #1\n\t"                                                                            \
        "strb r2, [lr], #1\n\t"                                                                            \
        "strb r3, [lr], #1\n\t"                                                                            \
        "ldr r4, [sp, #4]\n\t"                                                                             \
        "cmp lr, r4\n\t"                                                                                   \
        "bne 1b\n\t"                                                                                       \
        "ldr r4, [sp, #16]\n\t"                                                                            \
        "subs r4, r4, #1\n\t"                                                                              \
        "beq 4f\n\t"                                                                                       \
        "str r4, [sp, #16]\n\t"                                                                            \
        "ldr r4, [sp]\n\t"                                                                                 \
        "ldr r5, [sp, #20]\n\t"                                                                            \
        "add r4, r4, r5\n\t"                                                                               \
        "str r4, [sp]\n\t"                                                                                 \
        "b 3b\n"                                                                                            \
        "4:\n\t"                                                                                           \
        "add sp, sp, #32\n\t"                                                                              \
        "pop {r4-r11, pc}\n\t");                                                                           \
  }
KILN_PK_BLOCKS_ASM(kiln_s8_pk_blocks_dsp0, KILN_PK_CORR0)
KILN_PK_BLOCKS_ASM(kiln_s8_pk_blocks_dsp1, KILN_PK_CORR1)
#undef KILN_PK_BLOCKS_ASM
#undef KILN_PK_STEP
#undef KILN_PK_STEP4
#undef KILN_PK_RQ2
#undef KILN_PK_CORR0
#undef KILN_PK_CORR1
#undef KILN_PK_UNUSED
#endif

/* The packed GEMM of one call: every column against every block. */
typedef struct {
  const int32_t* packed;
  int32_t row_len, n_out, corr;
  int32_t ctl[4]; /* the asm's view: 2 * row_len, full blocks, columns, column step in bytes */
} kiln_s8_pk_t;

/* kiln_s8_pk_blocks_dsp* read ctl with one LDM of four words. */
KILN_ASM_CHECK(pk_ctl_words, sizeof(((kiln_s8_pk_t*)0)->ctl) == 4 * sizeof(int32_t));

static inline void kiln_s8_pk_init(kiln_s8_pk_t* g, const int32_t* packed, int32_t row_len, int32_t n_out,
                                   int32_t output_offset) {
  g->packed = packed;
  g->row_len = row_len;
  g->n_out = n_out;
  g->corr = output_offset != -128;
  g->ctl[0] = 2 * row_len;
  g->ctl[1] = n_out / 4;
  g->ctl[2] = 1;
  g->ctl[3] = 2 * row_len;
}

/* Channels [n_out / 4 * 4, n_out) of one column: the last block, zero rows after them. */
static void kiln_s8_pk_partial(const kiln_s8_pk_t* g, const int16_t* col, int8_t* y) {
  const int32_t full = g->n_out / 4;
  int8_t out[4];
  int32_t r;
  kiln_s8_pk_blocks_c(col, g->packed + (int64_t)full * KILN_S8_PK_BLOCK_WORDS(g->row_len), out, 1, g->row_len,
                      g->corr);
  for (r = 0; full * 4 + r < g->n_out; ++r) y[full * 4 + r] = out[r];
}

/* Outputs of n_cols columns (row_len int16 each, column j at col + j * ctl[3] / 2
 * int16), y of column j at y + j * n_out. */
static inline void kiln_s8_pk_columns(kiln_s8_pk_t* g, const int16_t* col, int32_t n_cols, int8_t* y) {
  int32_t j;
  if (g->n_out % 4 == 0 && n_cols > 0) {
#if KILN_S8_DSP && defined(__GNUC__)
    g->ctl[2] = n_cols;
    if (g->corr)
      kiln_s8_pk_blocks_dsp1(col, g->packed, y, g->ctl);
    else
      kiln_s8_pk_blocks_dsp0(col, g->packed, y, g->ctl);
#else
    for (j = 0; j < n_cols; ++j)
      kiln_s8_pk_blocks_c(col + (int64_t)j * (g->ctl[3] / 2), g->packed, y + (int64_t)j * g->n_out, g->ctl[1],
                          g->row_len, g->corr);
#endif
    return;
  }
  for (j = 0; j < n_cols; ++j, col += g->row_len, y += g->n_out) {
    if (g->ctl[1] > 0) {
#if KILN_S8_DSP && defined(__GNUC__)
      g->ctl[2] = 1;
      if (g->corr)
        kiln_s8_pk_blocks_dsp1(col, g->packed, y, g->ctl);
      else
        kiln_s8_pk_blocks_dsp0(col, g->packed, y, g->ctl);
#else
      kiln_s8_pk_blocks_c(col, g->packed, y, g->ctl[1], g->row_len, g->corr);
#endif
    }
    kiln_s8_pk_partial(g, col, y);
  }
}

/* The int16 column of n int8 values (offset added), zero padded to row_len. */
static inline void kiln_s8_pk_widen(int16_t* col, const int8_t* x, int32_t n, int32_t row_len, int32_t offset) {
  kiln_s8_widen(col, x, n, offset);
  kiln_s8_zero(col + n, row_len - n);
}

#endif /* KILN_PK_S8_H */
