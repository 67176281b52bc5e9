/*
 * The pair form of a pointwise int8 Conv2D (nn_s8.h, kiln_conv2d_s8_pw): two
 * pixels are widened into one interleaved column, per four channels c..c+3
 *   A(c, c+2) A(c+1, c+3) B(c, c+2) B(c+1, c+3)     (int16 pairs, offset added)
 * (two SXTAB16 per word of four input bytes, no PKH), and every pair of output
 * channels of the stream runs over it: a 2x2 register block (two pixels by two
 * channels) whose DSP loop does per four taps one LDM of the four column words,
 * one LDM of the four weight words and eight SMLAD, 10 instructions for 16
 * multiply-accumulates where the packed form's 1x4 block spends 11, and stores
 * the two channels of a pixel as one halfword. An odd last pixel is widened into
 * both halves of the column and its outputs are written twice to the same place.
 *
 * Output of one channel as pk_s8.h (kiln_s8_pk_out): SMMLAR of 2 * acc with the
 * multiplier and round_offset (+ -1 for a negative accumulator unless the output
 * zero point is -128), ASR by the exponent, SSAT to 8 bits.
 */
#include "pk_s8.h"

/* Pixels [0, 2 * pairs) from x (in_c int8 each, in_c % 4 == 0) as pair columns,
 * pair j's at col + 2 * j * in_c. */
static void pw_widen_pairs(int16_t* col, const int8_t* x, int32_t in_c, int32_t pairs, int32_t offset) {
#if KILN_S8_DSP && defined(__GNUC__)
  /* Per four channels of a pair: two LDR, four SXTAB16, one STM. */
  const uint32_t off2 = ((uint32_t)offset & 0xFFFFu) | ((uint32_t)offset << 16);
  const int8_t* end = x + (int64_t)2 * pairs * in_c;
  while (x != end) {
    const int8_t* row_end = x + in_c;
    __asm__ volatile(
        "1:\n\t"
        "ldr r4, [%[a], %[n]]\n\t"
        "ldr r5, [%[a]], #4\n\t"
        "sxtab16 r6, %[off], r5\n\t"
        "sxtab16 r8, %[off], r5, ror #8\n\t"
        "sxtab16 r9, %[off], r4\n\t"
        "sxtab16 r10, %[off], r4, ror #8\n\t"
        "stmia %[d]!, {r6, r8, r9, r10}\n\t"
        "cmp %[a], %[e]\n\t"
        "bne 1b\n\t"
        : [a] "+r"(x), [d] "+r"(col)
        : [n] "r"(in_c), [off] "r"(off2), [e] "r"(row_end)
        : "r4", "r5", "r6", "r8", "r9", "r10", "cc", "memory");
    x += in_c;
  }
#else
  int32_t j, c;
  for (j = 0; j < pairs; ++j, x += 2 * in_c) {
    const int8_t *a = x, *b = x + in_c;
    for (c = 0; c < in_c; c += 4, col += 8) {
      col[0] = (int16_t)(a[c] + offset), col[1] = (int16_t)(a[c + 2] + offset);
      col[2] = (int16_t)(a[c + 1] + offset), col[3] = (int16_t)(a[c + 3] + offset);
      col[4] = (int16_t)(b[c] + offset), col[5] = (int16_t)(b[c + 2] + offset);
      col[6] = (int16_t)(b[c + 1] + offset), col[7] = (int16_t)(b[c + 3] + offset);
    }
  }
#endif
}

/* The last pixel (in_c int8 at a) twice, as one pair column. */
static void pw_widen_twice(int16_t* col, const int8_t* a, int32_t in_c, int32_t offset) {
  int32_t c;
  for (c = 0; c < in_c; c += 4, col += 8) {
    col[0] = col[4] = (int16_t)(a[c] + offset), col[1] = col[5] = (int16_t)(a[c + 2] + offset);
    col[2] = col[6] = (int16_t)(a[c + 1] + offset), col[3] = col[7] = (int16_t)(a[c + 3] + offset);
  }
}

/* ctl of one call: { column bytes (4 * in_c), stream bytes, pairs (>= 1), bytes from
 * a pixel's outputs to its partner's (out_c, or 0 for a pixel paired with itself),
 * out_c }; pair j's column at col + j * ctl[0], its first pixel's outputs at
 * y + 2 * j * out_c. */
#if KILN_S8_DSP && defined(__GNUC__)
/*
 * r0 column, r1 stream, r2 y, r3 ctl. Registers in the dot-product loop: r0-r3
 * accumulators (A c, A c+1, B c, B c+1), r4-r7 the column words, r8-r11 the
 * weight words, r12 column pointer, lr stream. On the stack: [0] column, [4]
 * column end, [8] entry of the loop (a Duff's device: 64 taps per pass in
 * sixteen 40-byte steps, a row of 4 * k taps enters at step (16 - k % 16) % 16),
 * [12] stream, [16] stream end, [20] outputs of pixel A, [24] partner step - 2,
 * [28] pairs left, [32] out_c, [36] column bytes.
 */
#define KILN_PW_STEP                    \
  "ldmia.w r12!, {r4, r5, r6, r7}\n\t"  \
  "ldmia.w lr!, {r8, r9, r10, r11}\n\t" \
  "smlad r0, r4, r8, r0\n\t"            \
  "smlad r1, r4, r10, r1\n\t"           \
  "smlad r2, r6, r8, r2\n\t"            \
  "smlad r3, r6, r10, r3\n\t"           \
  "smlad r0, r5, r9, r0\n\t"            \
  "smlad r1, r5, r11, r1\n\t"           \
  "smlad r2, r7, r9, r2\n\t"            \
  "smlad r3, r7, r11, r3\n\t"
#define KILN_PW_STEP4 KILN_PW_STEP KILN_PW_STEP KILN_PW_STEP KILN_PW_STEP
/* r4 M(c), r5 round_offset(c), r6 e(c), r7 M(c+1), r8 round_offset(c+1), r9 e(c+1). */
#define KILN_PW_RQ_CORR0              \
  "smmlar r0, r0, r4, r5\n\t"         \
  "smmlar r2, r2, r4, r5\n\t"         \
  "smmlar r1, r1, r7, r8\n\t"         \
  "smmlar r3, r3, r7, r8\n\t"
#define KILN_PW_RQ_CORR1              \
  "add r10, r5, r0, asr #31\n\t"      \
  "smmlar r0, r0, r4, r10\n\t"        \
  "add r10, r5, r2, asr #31\n\t"      \
  "smmlar r2, r2, r4, r10\n\t"        \
  "add r10, r8, r1, asr #31\n\t"      \
  "smmlar r1, r1, r7, r10\n\t"        \
  "add r10, r8, r3, asr #31\n\t"      \
  "smmlar r3, r3, r7, r10\n\t"
/* Register contract: an AAPCS function the compiler calls (noinline) but does not
 * frame (naked). In: r0 col, r1 the stream, r2 y, r3 ctl (int32 ctl[5], read only). It pushes r4-r11 and lr first and returns by
 * popping them with pc, so r4-r11, lr's return address and sp are as on entry;
 * r0-r3, r12 and the flags are clobbered (caller-saved); no FPU or MVE register
 * is used and nothing is called. Stack: 76 bytes (36 pushed + 40 of locals).
 * Writes: y only. */
#define KILN_PW_UNUSED __attribute__((unused))
#define KILN_PW_PAIRS_ASM(name, rq, test)                                                                        \
  __attribute__((naked, noinline, unused)) static void name(                                                 \
      KILN_PW_UNUSED const int16_t* col, KILN_PW_UNUSED const int32_t* wp, KILN_PW_UNUSED int8_t* y,          \
      KILN_PW_UNUSED const int32_t* ctl) {                                                                   \
    __asm__ volatile(                                                                                      \
        "push {r4-r11, lr}\n\t"                                                                            \
        "sub sp, sp, #40\n\t"                                                                              \
        "ldm r3, {r4, r5, r6, r7, r8}\n\t"                                                                 \
        "str r0, [sp]\n\t"                                                                                 \
        "add r9, r0, r4\n\t"                                                                               \
        "str r9, [sp, #4]\n\t"                                                                             \
        "str r1, [sp, #12]\n\t"                                                                            \
        "add r9, r1, r5\n\t"                                                                               \
        "str r9, [sp, #16]\n\t"                                                                            \
        "str r2, [sp, #20]\n\t"                                                                            \
        "subs r7, r7, #2\n\t"                                                                              \
        "str r7, [sp, #24]\n\t"                                                                            \
        "str r6, [sp, #28]\n\t"                                                                            \
        "str r8, [sp, #32]\n\t"                                                                            \
        "str r4, [sp, #36]\n\t"                                                                            \
        "lsrs r4, r4, #4\n\t"                                                                              \
        "negs r4, r4\n\t"                                                                                  \
        "and r4, r4, #15\n\t"                                                                              \
        "movs r5, #40\n\t"                                                                                 \
        "muls r4, r5, r4\n\t"                                                                              \
        "adr.w r5, 2f\n\t"                                                                                 \
        "add r4, r4, r5\n\t"                                                                               \
        "orr r4, r4, #1\n\t"                                                                               \
        "str r4, [sp, #8]\n"                                                                               \
        "3:\n\t"                                                                                           \
        "ldr lr, [sp, #12]\n"                                                                              \
        "1:\n\t"                                                                                           \
        "ldmia lr!, {r0, r1, r2, r3}\n\t"                                                                  \
        "ldr r12, [sp]\n\t"                                                                                \
        "ldr pc, [sp, #8]\n\t"                                                                             \
        ".balign 4\n"                                                                                       \
        "2:\n\t" KILN_PW_STEP4 KILN_PW_STEP4 KILN_PW_STEP4 KILN_PW_STEP4 test                              \
        "ldmia lr!, {r4, r5, r6, r7, r8, r9}\n\t" rq                                                        \
        "asr.w r0, r0, r6\n\t"                                                                             \
        "asr.w r2, r2, r6\n\t"                                                                             \
        "asr.w r1, r1, r9\n\t"                                                                             \
        "asr.w r3, r3, r9\n\t"                                                                             \
        "ssat r0, #8, r0\n\t"                                                                              \
        "ssat r1, #8, r1\n\t"                                                                              \
        "ssat r2, #8, r2\n\t"                                                                              \
        "ssat r3, #8, r3\n\t"                                                                              \
        "ldrd r10, r11, [sp, #20]\n\t"                                                                     \
        "bfi r0, r1, #8, #8\n\t"                                                                           \
        "bfi r2, r3, #8, #8\n\t"                                                                           \
        "strh r0, [r10], #2\n\t"                                                                           \
        "strh r2, [r10, r11]\n\t"                                                                          \
        "str r10, [sp, #20]\n\t"                                                                           \
        "ldr r4, [sp, #16]\n\t"                                                                            \
        "cmp lr, r4\n\t"                                                                                   \
        "bne 1b\n\t"                                                                                       \
        "ldr r4, [sp, #28]\n\t"                                                                            \
        "subs r4, r4, #1\n\t"                                                                              \
        "beq 4f\n\t"                                                                                       \
        "str r4, [sp, #28]\n\t"                                                                            \
        "ldr r5, [sp, #32]\n\t"                                                                            \
        "add r10, r10, r5\n\t"                                                                             \
        "str r10, [sp, #20]\n\t"                                                                           \
        "ldrd r4, r5, [sp]\n\t"                                                                            \
        "ldr r6, [sp, #36]\n\t"                                                                            \
        "add r4, r4, r6\n\t"                                                                               \
        "add r5, r5, r6\n\t"                                                                               \
        "strd r4, r5, [sp]\n\t"                                                                            \
        "b 3b\n"                                                                                            \
        "4:\n\t"                                                                                           \
        "add sp, sp, #40\n\t"                                                                              \
        "pop {r4-r11, pc}\n\t");                                                                           \
  }
/* The loop test; left out for rows of at most 64 taps (one pass). */
#define KILN_PW_TEST     \
  "ldr r4, [sp, #4]\n\t" \
  "cmp r12, r4\n\t"      \
  "bne 2b\n\t"
KILN_PW_PAIRS_ASM(pw_pairs_dsp0, KILN_PW_RQ_CORR0, KILN_PW_TEST)
KILN_PW_PAIRS_ASM(pw_pairs_dsp1, KILN_PW_RQ_CORR1, KILN_PW_TEST)
KILN_PW_PAIRS_ASM(pw_pairs_short_dsp0, KILN_PW_RQ_CORR0, )
KILN_PW_PAIRS_ASM(pw_pairs_short_dsp1, KILN_PW_RQ_CORR1, )
#undef KILN_PW_PAIRS_ASM
#undef KILN_PW_TEST

/*
 * One pixel (the odd last one) over the stream: its column is a pair column's A
 * half (two words in every 16 bytes), one pass of two channels per block. r0 column,
 * r1 stream, r2 y, r3 ctl (column bytes, stream bytes). Registers: r0, r1
 * accumulators, r4, r5 column words, r8-r11 weight words, r12 column pointer, lr
 * stream, r3 column end, r6 stream end, r7 column; on the stack the entry of the
 * dot-product loop (64 taps per pass in sixteen 24-byte steps).
 */
#define KILN_PW1_STEP                   \
  "ldrd r4, r5, [r12], #16\n\t"         \
  "ldmia.w lr!, {r8, r9, r10, r11}\n\t" \
  "smlad r0, r4, r8, r0\n\t"            \
  "smlad r0, r5, r9, r0\n\t"            \
  "smlad r1, r4, r10, r1\n\t"           \
  "smlad r1, r5, r11, r1\n\t"
#define KILN_PW1_STEP4 KILN_PW1_STEP KILN_PW1_STEP KILN_PW1_STEP KILN_PW1_STEP
#define KILN_PW1_CORR0
#define KILN_PW1_CORR1             \
  "add r5, r5, r0, asr #31\n\t"    \
  "add r10, r10, r1, asr #31\n\t"
/* Register contract: an AAPCS function the compiler calls (noinline) but does not
 * frame (naked). In: r0 col, r1 the stream, r2 y, r3 ctl (int32 ctl[0..1], read only). It pushes r4-r11 and lr first and returns by
 * popping them with pc, so r4-r11, lr's return address and sp are as on entry;
 * r0-r3, r12 and the flags are clobbered (caller-saved); no FPU or MVE register
 * is used and nothing is called. Stack: 44 bytes (36 pushed + 8 of locals).
 * Writes: y only. */
#define KILN_PW1_UNUSED __attribute__((unused))
#define KILN_PW1_ASM(name, corr)                                                                             \
  __attribute__((naked, noinline, unused)) static void name(                                                 \
      KILN_PW1_UNUSED const int16_t* col, KILN_PW1_UNUSED const int32_t* wp, KILN_PW1_UNUSED int8_t* y,       \
      KILN_PW1_UNUSED const int32_t* ctl) {                                                                  \
    __asm__ volatile(                                                                                      \
        "push {r4-r11, lr}\n\t"                                                                            \
        "sub sp, sp, #8\n\t"                                                                               \
        "ldm r3, {r4, r5}\n\t"                                                                             \
        "mov r7, r0\n\t"                                                                                   \
        "add r3, r0, r4\n\t"                                                                               \
        "add r6, r1, r5\n\t"                                                                               \
        "mov lr, r1\n\t"                                                                                   \
        "lsrs r4, r4, #4\n\t"                                                                              \
        "negs r4, r4\n\t"                                                                                  \
        "and r4, r4, #15\n\t"                                                                              \
        "movs r5, #24\n\t"                                                                                 \
        "muls r4, r5, r4\n\t"                                                                              \
        "adr.w r5, 2f\n\t"                                                                                 \
        "add r4, r4, r5\n\t"                                                                               \
        "orr r4, r4, #1\n\t"                                                                               \
        "str r4, [sp]\n"                                                                                    \
        "1:\n\t"                                                                                           \
        "ldrd r0, r1, [lr], #16\n\t"                                                                       \
        "mov r12, r7\n\t"                                                                                  \
        "ldr pc, [sp]\n\t"                                                                                 \
        ".balign 4\n"                                                                                       \
        "2:\n\t" KILN_PW1_STEP4 KILN_PW1_STEP4 KILN_PW1_STEP4 KILN_PW1_STEP4                               \
        "cmp r12, r3\n\t"                                                                                  \
        "bne 2b\n\t"                                                                                       \
        "ldmia lr!, {r4, r5, r8, r9, r10, r11}\n\t" corr                                                   \
        "smmlar r0, r0, r4, r5\n\t"                                                                        \
        "smmlar r1, r1, r9, r10\n\t"                                                                       \
        "asr.w r0, r0, r8\n\t"                                                                             \
        "asr.w r1, r1, r11\n\t"                                                                            \
        "ssat r0, #8, r0\n\t"                                                                              \
        "ssat r1, #8, r1\n\t"                                                                              \
        "bfi r0, r1, #8, #8\n\t"                                                                           \
        "strh r0, [r2], #2\n\t"                                                                            \
        "cmp lr, r6\n\t"                                                                                   \
        "bne 1b\n\t"                                                                                       \
        "add sp, sp, #8\n\t"                                                                               \
        "pop {r4-r11, pc}\n\t");                                                                           \
  }
KILN_PW1_ASM(pw_one_dsp0, KILN_PW1_CORR0)
KILN_PW1_ASM(pw_one_dsp1, KILN_PW1_CORR1)
#undef KILN_PW1_ASM
#undef KILN_PW1_STEP
#undef KILN_PW1_STEP4
#undef KILN_PW1_CORR0
#undef KILN_PW1_CORR1
#undef KILN_PW1_UNUSED
#undef KILN_PW_STEP
#undef KILN_PW_STEP4
#undef KILN_PW_RQ_CORR0
#undef KILN_PW_RQ_CORR1
#undef KILN_PW_UNUSED
#else
/* Portable C of the same loop. */
static void pw_pairs_c(const int16_t* col, const int32_t* wp, int8_t* y, const int32_t* ctl, int corr) {
  const int32_t row_len = ctl[0] / 4, blocks = ctl[1] / (int32_t)(4 * KILN_S8_PW_PAIR_WORDS((uint32_t)row_len));
  int32_t j, b, k;
  for (j = 0; j < ctl[2]; ++j, col += 2 * row_len) {
    int8_t* ya = y + (int64_t)2 * j * ctl[4];
    int8_t* yb = ya + ctl[3];
    const int32_t* blk = wp;
    for (b = 0; b < blocks; ++b, blk += KILN_S8_PW_PAIR_WORDS((uint32_t)row_len), ya += 2, yb += 2) {
      const int16_t* w = (const int16_t*)(const void*)(blk + 4);
      const int32_t* rq = blk + 4 + row_len;
      int32_t a0 = blk[0], a1 = blk[1], b0 = blk[2], b1 = blk[3];
      const int16_t* c = col;
      for (; c < col + 2 * row_len; c += 8, w += 8)
        for (k = 0; k < 4; ++k) {
          a0 += c[k] * w[k], a1 += c[k] * w[4 + k];
          b0 += c[4 + k] * w[k], b1 += c[4 + k] * w[4 + k];
        }
      /* Pixel B first: for a pixel paired with itself (yb == ya) both are the same. */
      yb[0] = kiln_s8_pk_out(b0, rq, corr), yb[1] = kiln_s8_pk_out(b1, rq + 3, corr);
      ya[0] = kiln_s8_pk_out(a0, rq, corr), ya[1] = kiln_s8_pk_out(a1, rq + 3, corr);
    }
  }
}
#endif

static void pw_pairs(const int16_t* col, const int32_t* wp, int8_t* y, const int32_t* ctl, int corr) {
#if KILN_S8_DSP && defined(__GNUC__)
  if (ctl[0] <= 4 * 64) {
    if (corr)
      pw_pairs_short_dsp1(col, wp, y, ctl);
    else
      pw_pairs_short_dsp0(col, wp, y, ctl);
  } else if (corr) {
    pw_pairs_dsp1(col, wp, y, ctl);
  } else {
    pw_pairs_dsp0(col, wp, y, ctl);
  }
#else
  pw_pairs_c(col, wp, y, ctl, corr);
#endif
}

kiln_status_t kiln_conv2d_s8_pw(const kiln_conv2d_s8_params_t* p, const int8_t* x, const int32_t* packed, int8_t* y,
                                int16_t* scratch) {
  int32_t n, i, cols, ctl[5];
  int corr;
  if (p == NULL || x == NULL || packed == NULL || y == NULL || scratch == NULL) return KILN_ERR_NULL_POINTER;
  if (p->groups != 1 || p->kernel_h != 1 || p->kernel_w != 1 || p->stride_h != 1 || p->stride_w != 1 ||
      p->pad_top != 0 || p->pad_left != 0 || p->out_h != p->in_h || p->out_w != p->in_w || p->in_c <= 0 ||
      p->in_c % 4 != 0 || p->out_c <= 0 || p->out_c % 2 != 0 || p->act_min != -128 || p->act_max != 127)
    return KILN_ERR_BAD_ARGUMENT;
  if (!kiln_s8_aligned4(packed) || !kiln_s8_aligned4(scratch)) return KILN_ERR_BAD_ARGUMENT;
  KILN_ASM_EXPECT(sizeof(ctl) == 5 * sizeof(int32_t)); /* pw_pairs_dsp*: one LDM of five words */
  n = p->batch * p->in_h * p->in_w;
  cols = (int32_t)KILN_S8_PW_COLS((uint32_t)p->in_c);
  corr = p->output_offset != -128;
  ctl[0] = 4 * p->in_c;
  ctl[1] = (p->out_c / 2) * (int32_t)(4 * KILN_S8_PW_PAIR_WORDS((uint32_t)p->in_c));
  ctl[3] = p->out_c;
  ctl[4] = p->out_c;
  for (i = 0; i + 1 < n;) {
    const int32_t m = (n - i) / 2 < cols / 2 ? (n - i) / 2 : cols / 2; /* pairs of this call */
    pw_widen_pairs(scratch, x + (int64_t)i * p->in_c, p->in_c, m, p->input_offset);
    ctl[2] = m;
    pw_pairs(scratch, packed, y + (int64_t)i * p->out_c, ctl, corr);
    i += 2 * m;
  }
  if (i < n) { /* the odd last pixel, paired with itself */
    pw_widen_twice(scratch, x + (int64_t)i * p->in_c, p->in_c, p->input_offset);
    ctl[2] = 1, ctl[3] = 0;
#if KILN_S8_DSP && defined(__GNUC__)
    if (corr)
      pw_one_dsp1(scratch, packed, y + (int64_t)i * p->out_c, ctl);
    else
      pw_one_dsp0(scratch, packed, y + (int64_t)i * p->out_c, ctl);
#else
    pw_pairs(scratch, packed, y + (int64_t)i * p->out_c, ctl, corr);
#endif
  }
  return KILN_OK;
}
