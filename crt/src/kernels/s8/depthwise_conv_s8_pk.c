/*
 * The packed form of int8 depthwise Conv2D (depth multiplier 1, nn_s8.h,
 * kiln_depthwise_conv2d_s8_pk): per block of four channels one stream of
 * 2 * bias, the doubled int16 weights tap by tap and the channels'
 * requantization (pk_s8.h). A pixel whose window lies inside the input reads it
 * in place; a border pixel's window is copied into scratch with the input zero
 * point in its padded taps (which then add 0), so every window is a whole one.
 * On the DSP path a run of pixels of a 3x3 kernel is one asm function: per block
 * an LDM of the bias, per tap an LDR of four input channels, two SXTAB16 (input
 * offset added), an LDRD of the four weights and SMLABB / SMLABT / SMLATB /
 * SMLATT (8 instructions), then per two outputs an LDM of their requantization
 * constants and SMMLAR, ASR, SSAT each.
 */
#include "../asm_guard.h"
#include "pk_s8.h"

/* What a run of pixels needs (the asm reads it by these offsets). */
typedef struct {
  int32_t tap_step;  /* bytes between the taps of a kernel row (0) */
  int32_t row_step;  /* bytes between kernel rows (4) */
  uint32_t off2;     /* input offset in both halves (8) */
  int32_t n_blocks;  /* blocks of four channels (12) */
  int32_t x_step;    /* bytes between the windows of neighbouring pixels (16) */
  int32_t n_pix;     /* pixels, >= 1 (20) */
  int32_t taps, kernel_w, input_offset, corr;
} dwpk_ctl_t;

/* Portable C: n_pix pixels, windows at x + i * x_step, outputs y[i * 4 * n_blocks ...]. */
static void dwpk_pixels_c(const int8_t* x, const int32_t* packed, int8_t* y, const dwpk_ctl_t* k) {
  const int32_t words = 4 + 2 * k->taps + 12;
  int32_t i, b, t, l;
  for (i = 0; i < k->n_pix; ++i, x += k->x_step) {
    const int32_t* wp = packed;
    for (b = 0; b < k->n_blocks; ++b, wp += words, y += 4) {
      const int16_t* w = (const int16_t*)(const void*)(wp + 4);
      const int32_t* rq = wp + 4 + 2 * k->taps;
      int32_t a[4];
      for (l = 0; l < 4; ++l) a[l] = wp[l];
      for (t = 0; t < k->taps; ++t) {
        const int8_t* xp = x + 4 * b + (t / k->kernel_w) * k->row_step + (t % k->kernel_w) * k->tap_step;
        for (l = 0; l < 4; ++l) a[l] += (xp[l] + k->input_offset) * w[t * 4 + l];
      }
      for (l = 0; l < 4; ++l) y[l] = kiln_s8_pk_out(a[l], rq + 3 * l, k->corr);
    }
  }
}

#if KILN_S8_DSP && defined(__GNUC__)
/* The offsets of dwpk_ctl_t that dwpk_3x3_dsp* read ([r3, #N]). */
KILN_ASM_OFFSET(dwpk_ctl_t, tap_step, 0);
KILN_ASM_OFFSET(dwpk_ctl_t, row_step, 4);
KILN_ASM_OFFSET(dwpk_ctl_t, off2, 8);
KILN_ASM_OFFSET(dwpk_ctl_t, n_blocks, 12);
KILN_ASM_OFFSET(dwpk_ctl_t, x_step, 16);
KILN_ASM_OFFSET(dwpk_ctl_t, n_pix, 20);

/* r0 x, r1 stream, r2 y, r3 ctl. Registers: r0-r3 accumulators, r4/r5 input
 * halves, r6 window, r7 stream, r8/r9 weights, r10 tap step, r11 input offset,
 * r12 row step, lr outputs; on the stack the block loop's output end (pushed per
 * pixel), the pixel's window, the stream, ctl, the pixels left. */
#define DWPK_TAP(load)                  \
  load                                  \
  "ldrd r8, r9, [r7], #8\n\t"           \
  "sxtab16 r5, r11, r4\n\t"             \
  "sxtab16 r4, r11, r4, ror #8\n\t"     \
  "smlabb r0, r5, r8, r0\n\t"           \
  "smlabt r1, r4, r8, r1\n\t"           \
  "smlatb r2, r5, r9, r2\n\t"           \
  "smlatt r3, r4, r9, r3\n\t"
#define DWPK_ROW                                   \
  DWPK_TAP("ldr r4, [r6]\n\t")                     \
  DWPK_TAP("ldr r4, [r6, r10]\n\t")                \
  DWPK_TAP("ldr r4, [r6, r10, lsl #1]\n\t")
#define DWPK_RQ(a, corr)                           \
  "ldmia r7!, {r4, r5, r8}\n\t"                   \
  corr("r5", a)                                    \
  "smmlar " a ", " a ", r4, r5\n\t"                \
  "asr.w " a ", " a ", r8\n\t"                     \
  "ssat " a ", #8, " a "\n\t"
#define DWPK_CORR1(r, a) "add " r ", " r ", " a ", asr #31\n\t"
#define DWPK_CORR0(r, a)
/* Register contract: an AAPCS function the compiler calls (noinline) but does not
 * frame (naked). In: r0 x, r1 the stream, r2 y, r3 ctl (dwpk_ctl_t, read only). It pushes r4-r11 and lr first and returns by
 * popping them with pc, so r4-r11, lr's return address and sp are as on entry;
 * r0-r3, r12 and the flags are clobbered (caller-saved); no FPU or MVE register
 * is used and nothing is called. Stack: 56 bytes (36 pushed + 20 of locals, of which 4 pushed per pixel).
 * Writes: y only. */
#define DWPK_UNUSED __attribute__((unused))
#define DWPK_ASM(name, corr)                                                                                  \
  __attribute__((naked, noinline)) static void name(DWPK_UNUSED const int8_t* x, DWPK_UNUSED const int32_t* wp, \
                                                    DWPK_UNUSED int8_t* y, DWPK_UNUSED const dwpk_ctl_t* k) {   \
    __asm__ volatile(                                                                                         \
        "push {r4-r11, lr}\n\t"                                                                               \
        "sub sp, sp, #16\n\t"                                                                                 \
        "str r0, [sp]\n\t"                                                                                    \
        "str r3, [sp, #8]\n\t"                                                                                \
        "ldr r4, [r3, #20]\n\t"                                                                               \
        "str r4, [sp, #12]\n\t"                                                                               \
        "ldr r10, [r3]\n\t"                                                                                   \
        "ldr r12, [r3, #4]\n\t"                                                                               \
        "ldr r11, [r3, #8]\n\t"                                                                               \
        "str r1, [sp, #4]\n\t"                                                                                \
        "mov lr, r2\n"                                                                                        \
        "1:\n\t"                                                                                              \
        "ldr r6, [sp]\n\t"                                                                                    \
        "ldr r7, [sp, #4]\n\t"                                                                                \
        "ldr r4, [sp, #8]\n\t"                                                                                \
        "ldr r4, [r4, #12]\n\t"                                                                               \
        "add r4, lr, r4, lsl #2\n\t"                                                                          \
        "push {r4}\n"                                                                                         \
        "2:\n\t"                                                                                              \
        "ldmia r7!, {r0, r1, r2, r3}\n\t" DWPK_ROW "add r6, r6, r12\n\t" DWPK_ROW "add r6, r6, r12\n\t"       \
        DWPK_ROW "sub r6, r6, r12, lsl #1\n\t"                                                                \
        "adds r6, r6, #4\n\t" DWPK_RQ("r0", corr) DWPK_RQ("r1", corr) DWPK_RQ("r2", corr) DWPK_RQ("r3", corr) \
        "strb r0, [lr], #1\n\t"                                                                               \
        "strb r1, [lr], #1\n\t"                                                                               \
        "strb r2, [lr], #1\n\t"                                                                               \
        "strb r3, [lr], #1\n\t"                                                                               \
        "ldr r4, [sp]\n\t"                                                                                    \
        "cmp lr, r4\n\t"                                                                                      \
        "bne 2b\n\t"                                                                                          \
        "add sp, sp, #4\n\t"                                                                                  \
        "ldr r4, [sp, #8]\n\t"                                                                                \
        "ldr r4, [r4, #16]\n\t"                                                                               \
        "ldr r5, [sp]\n\t"                                                                                    \
        "add r5, r5, r4\n\t"                                                                                  \
        "str r5, [sp]\n\t"                                                                                    \
        "ldr r4, [sp, #12]\n\t"                                                                               \
        "subs r4, r4, #1\n\t"                                                                                 \
        "str r4, [sp, #12]\n\t"                                                                               \
        "bne 1b\n\t"                                                                                          \
        "add sp, sp, #16\n\t"                                                                                 \
        "pop {r4-r11, pc}\n\t");                                                                              \
  }
DWPK_ASM(dwpk_3x3_dsp0, DWPK_CORR0)
DWPK_ASM(dwpk_3x3_dsp1, DWPK_CORR1)
#endif

static void dwpk_pixels(const int8_t* x, const int32_t* packed, int8_t* y, const dwpk_ctl_t* k) {
#if KILN_S8_DSP && defined(__GNUC__)
  if (k->taps == 9 && k->kernel_w == 3) {
    if (k->corr)
      dwpk_3x3_dsp1(x, packed, y, k);
    else
      dwpk_3x3_dsp0(x, packed, y, k);
    return;
  }
#endif
  dwpk_pixels_c(x, packed, y, k);
}

/*
 * The planar form (3x3, stride_w 1, dilation 1; KILN_S8_DW_PK_PLANAR): per block
 * of four channels, each padded input row the window reaches is widened once into
 * four channel planes of int16 (input offset added, 0 in the padding), a ring of
 * three rows per plane (row pr in slot pr % 3; PW = 4 * ceil(out_w / 4) + 2 values
 * per row), so that two taps of one channel are one word and SMLAD does two MACs.
 * Per channel the 3x3 weights become, per kernel row, the words P = (w0, w1) and
 * T = (w1, w2) (doubled, as in the stream); four outputs of a row from the words
 * A = (c0, c1), B = (c2, c3), C = (c4, c5) of each input row:
 *   y0 += A.P + B.lo * T.hi        (SMLAD, SMLABT)
 *   y1 += A.hi * P.lo + B.T        (SMLATB, SMLAD)
 *   y2 += B.P + C.lo * T.hi
 *   y3 += B.hi * P.lo + C.T
 * 8 instructions for 12 MACs per kernel row (one LDM of the row's three words and
 * an LDRD of P, T), then per output SMMLAR, ASR, SSAT and a STRB. The record of a
 * channel: 2 * bias four times (one LDM into the accumulators), P0 T0 P1 T1 P2 T2,
 * multiplier, round_offset, exponent (13 words).
 */
#define DWPL_REC 13

typedef struct {
  const int16_t* x; /* plane 0, the slot of the window's first row, column 0 (0) */
  int32_t d1, d2;   /* bytes from the first row's slot to the second's and the third's (4, 8) */
  int32_t plane;    /* bytes between the planes (12) */
  const int32_t* w; /* the four channels' records (16) */
  int8_t* y;        /* output of the row's first pixel, the block's first channel (20) */
  int32_t c;        /* bytes between output pixels (24) */
  int32_t groups;   /* full groups of four outputs (28) */
  int32_t tail;     /* outputs after them, 0..3 (32) */
  int32_t corr;
} dwpl_ctl_t;

#if !(KILN_S8_DSP && defined(__GNUC__))
/* Portable C of the asm below (the same sums): the row's outputs of the block's four channels. */
static void dwpl_row_c(const dwpl_ctl_t* k) {
  const int32_t n = 4 * k->groups + k->tail;
  int32_t ch, ox, ky;
  for (ch = 0; ch < 4; ++ch) {
    const int16_t* x0 = (const int16_t*)(const void*)((const char*)k->x + ch * k->plane);
    const int16_t* rows[3];
    const int32_t* w = k->w + ch * DWPL_REC;
    rows[0] = x0;
    rows[1] = (const int16_t*)(const void*)((const char*)x0 + k->d1);
    rows[2] = (const int16_t*)(const void*)((const char*)x0 + k->d2);
    for (ox = 0; ox < n; ++ox) {
      int32_t acc = w[0];
      for (ky = 0; ky < 3; ++ky) {
        const uint32_t pw = (uint32_t)w[4 + 2 * ky], tw = (uint32_t)w[5 + 2 * ky];
        const int16_t* r = rows[ky] + ox;
        acc += r[0] * (int16_t)(pw & 0xFFFFu) + r[1] * (int16_t)(pw >> 16) + r[2] * (int16_t)(tw >> 16);
      }
      k->y[ox * k->c + ch] = kiln_s8_pk_out(acc, w + 10, k->corr);
    }
  }
}
#endif

#if KILN_S8_DSP && defined(__GNUC__)
/* The offsets of dwpl_ctl_t that dwpl_row_dsp* read and write ([r0, #N], [r4, #N]),
 * and the record of a channel: P0 T0 at byte 16, P1 T1 at 24, P2 T2 at 32, the
 * multiplier and round_offset at 40, the exponent at 48, 52 bytes in all. */
KILN_ASM_OFFSET(dwpl_ctl_t, x, 0);
KILN_ASM_OFFSET(dwpl_ctl_t, d1, 4);
KILN_ASM_OFFSET(dwpl_ctl_t, d2, 8);
KILN_ASM_OFFSET(dwpl_ctl_t, plane, 12);
KILN_ASM_OFFSET(dwpl_ctl_t, w, 16);
KILN_ASM_OFFSET(dwpl_ctl_t, y, 20);
KILN_ASM_OFFSET(dwpl_ctl_t, c, 24);
KILN_ASM_OFFSET(dwpl_ctl_t, groups, 28);
KILN_ASM_OFFSET(dwpl_ctl_t, tail, 32);
KILN_ASM_CHECK(dwpl_record_bytes, DWPL_REC * 4 == 52);

/* r0 ctl. Registers: r0-r3 the four outputs, r4-r6 an input row's words, r7/r8 P
 * and T, r9 the window's first row, r10 the channel's record, r11 d1, r12
 * outputs, lr the end of the full groups; on the stack d2, the output step, ctl
 * and the channels left. ctl's x, w and y move to the next channel (the caller
 * sets them per call). */
#define DWPL_ROW(load, wofs)               \
  load                                     \
  "ldrd r7, r8, [r10, #" wofs "]\n\t"      \
  "smlad r0, r4, r7, r0\n\t"               \
  "smlatb r1, r4, r7, r1\n\t"              \
  "smlabt r0, r5, r8, r0\n\t"              \
  "smlad r1, r5, r8, r1\n\t"               \
  "smlad r2, r5, r7, r2\n\t"               \
  "smlatb r3, r5, r7, r3\n\t"              \
  "smlabt r2, r6, r8, r2\n\t"              \
  "smlad r3, r6, r8, r3\n\t"
#define DWPL_RQ(a, corr)                   \
  corr(a)                                  \
  "asr.w " a ", " a ", r6\n\t"             \
  "ssat " a ", #8, " a "\n\t"
#define DWPL_CORR0(a) "smmlar " a ", " a ", r4, r5\n\t"
#define DWPL_CORR1(a) "add r8, r5, " a ", asr #31\n\t" "smmlar " a ", " a ", r4, r8\n\t"
#define DWPL_BODY(corr)                                                    \
  "ldm r10, {r0, r1, r2, r3}\n\t"                                          \
  DWPL_ROW("ldm r9, {r4, r5, r6}\n\t", "16")                               \
  "add r4, r9, r11\n\t"                                                    \
  DWPL_ROW("ldm r4, {r4, r5, r6}\n\t", "24")                               \
  "ldr r4, [sp]\n\t"                                                       \
  "add r4, r4, r9\n\t"                                                     \
  DWPL_ROW("ldm r4, {r4, r5, r6}\n\t", "32")                               \
  "add r9, r9, #8\n\t"                                                     \
  "ldrd r4, r5, [r10, #40]\n\t"                                            \
  "ldr r6, [r10, #48]\n\t" DWPL_RQ("r0", corr) DWPL_RQ("r1", corr)         \
  DWPL_RQ("r2", corr) DWPL_RQ("r3", corr)                                  \
  "ldr r7, [sp, #4]\n\t"
/* Register contract: an AAPCS function the compiler calls (noinline) but does not
 * frame (naked). In: r0 ctl (dwpl_ctl_t). It pushes r4-r11 and lr first and returns by
 * popping them with pc, so r4-r11, lr's return address and sp are as on entry;
 * r0-r3, r12 and the flags are clobbered (caller-saved); no FPU or MVE register
 * is used and nothing is called. Stack: 52 bytes (36 pushed + 16 of locals).
 * Writes: the row's outputs through ctl->y, and ctl's x, w and y (moved to the next channel). */
#define DWPL_UNUSED __attribute__((unused))
#define DWPL_ASM(name, corr)                                                               \
  __attribute__((naked, noinline)) static void name(DWPL_UNUSED const dwpl_ctl_t* k) {     \
    __asm__ volatile(                                                                      \
        "push {r4-r11, lr}\n\t"                                                            \
        "sub sp, sp, #16\n\t"                                                              \
        "str r0, [sp, #8]\n\t"                                                             \
        "ldr r4, [r0, #8]\n\t"                                                             \
        "str r4, [sp]\n\t"                                                                 \
        "ldr r4, [r0, #24]\n\t"                                                            \
        "str r4, [sp, #4]\n\t"                                                             \
        "movs r4, #4\n\t"                                                                  \
        "str r4, [sp, #12]\n\t"                                                            \
        "ldr r11, [r0, #4]\n"                                                              \
        "1:\n\t"                                                                           \
        "ldr r4, [sp, #8]\n\t"                                                             \
        "ldr r9, [r4]\n\t"                                                                 \
        "ldr r10, [r4, #16]\n\t"                                                           \
        "ldr r12, [r4, #20]\n\t"                                                           \
        "ldr r4, [r4, #28]\n\t"                                                            \
        "add lr, r9, r4, lsl #3\n\t"                                                       \
        "cmp r9, lr\n\t"                                                                   \
        "beq 3f\n"                                                                         \
        "2:\n\t" DWPL_BODY(corr)                                                           \
        "strb r0, [r12]\n\t"                                                               \
        "strb r1, [r12, r7]\n\t"                                                           \
        "add r12, r12, r7, lsl #1\n\t"                                                     \
        "strb r2, [r12]\n\t"                                                               \
        "strb r3, [r12, r7]\n\t"                                                           \
        "add r12, r12, r7, lsl #1\n\t"                                                     \
        "cmp r9, lr\n\t"                                                                   \
        "bne 2b\n"                                                                         \
        "3:\n\t"                                                                           \
        "ldr r4, [sp, #8]\n\t"                                                             \
        "ldr r4, [r4, #32]\n\t"                                                            \
        "cmp r4, #0\n\t"                                                                   \
        "beq 4f\n\t" DWPL_BODY(corr)                                                       \
        "ldr r4, [sp, #8]\n\t"                                                             \
        "ldr r4, [r4, #32]\n\t"                                                            \
        "strb r0, [r12]\n\t"                                                               \
        "cmp r4, #2\n\t"                                                                   \
        "blo 4f\n\t"                                                                       \
        "strb r1, [r12, r7]\n\t"                                                           \
        "beq 4f\n\t"                                                                       \
        "strb r2, [r12, r7, lsl #1]\n"                                                     \
        "4:\n\t"                                                                           \
        "ldr r4, [sp, #8]\n\t"                                                             \
        "ldr r5, [r4]\n\t"                                                                 \
        "ldr r6, [r4, #12]\n\t"                                                            \
        "add r5, r5, r6\n\t"                                                               \
        "str r5, [r4]\n\t"                                                                 \
        "ldr r5, [r4, #16]\n\t"                                                            \
        "add r5, r5, #52\n\t"                                                              \
        "str r5, [r4, #16]\n\t"                                                            \
        "ldr r5, [r4, #20]\n\t"                                                            \
        "add r5, r5, #1\n\t"                                                               \
        "str r5, [r4, #20]\n\t"                                                            \
        "ldr r5, [sp, #12]\n\t"                                                            \
        "subs r5, r5, #1\n\t"                                                              \
        "str r5, [sp, #12]\n\t"                                                            \
        "bne 1b\n\t"                                                                       \
        "add sp, sp, #16\n\t"                                                              \
        "pop {r4-r11, pc}\n\t");                                                           \
  }
DWPL_ASM(dwpl_row_dsp0, DWPL_CORR0)
DWPL_ASM(dwpl_row_dsp1, DWPL_CORR1)

/* Register contract: an AAPCS function the compiler calls (noinline) but does not
 * frame (naked). In: r0 src, r1 c, r2 off2, r3 d (int32 d[0] plane 0, d[1] bytes between planes, d[2] pairs). It pushes r4-r11 and lr first and returns by
 * popping them with pc, so r4-r11, lr's return address and sp are as on entry;
 * r0-r3, r12 and the flags are clobbered (caller-saved); no FPU or MVE register
 * is used and nothing is called. Stack: 36 bytes (36 pushed + 0 of locals).
 * Writes: the four planes. */
/* n >= 1 pixel pairs from src (c bytes apart) widened into the four planes from
 * d[0] (d[1] bytes apart): per pair two LDR, four SXTAB16 (offset added), four
 * PKH and four STR (17 instructions for eight values). */
__attribute__((naked, noinline)) static void dwpl_pairs_dsp(DWPL_UNUSED const int8_t* src, DWPL_UNUSED int32_t c,
                                                            DWPL_UNUSED uint32_t off2,
                                                            DWPL_UNUSED const int32_t* d) {
  __asm__ volatile(
      "push {r4-r11, lr}\n\t"
      "ldr r4, [r3]\n\t"
      "ldr r5, [r3, #4]\n\t"
      "ldr r8, [r3, #8]\n\t"
      "add r6, r4, r5, lsl #1\n\t"
      "add r7, r6, r5\n\t"
      "add r5, r4, r5\n"
      "1:\n\t"
      "ldr r9, [r0]\n\t"
      "ldr r10, [r0, r1]\n\t"
      "add r0, r0, r1, lsl #1\n\t"
      "sxtab16 r11, r2, r9\n\t"
      "sxtab16 r9, r2, r9, ror #8\n\t"
      "sxtab16 r12, r2, r10\n\t"
      "sxtab16 r10, r2, r10, ror #8\n\t"
      "pkhbt r3, r11, r12, lsl #16\n\t"
      "pkhtb r11, r12, r11, asr #16\n\t"
      "pkhbt r12, r9, r10, lsl #16\n\t"
      "pkhtb r9, r10, r9, asr #16\n\t"
      "str r3, [r4], #4\n\t"
      "str r12, [r5], #4\n\t"
      "str r11, [r6], #4\n\t"
      "str r9, [r7], #4\n\t"
      "subs r8, r8, #1\n\t"
      "bne 1b\n\t"
      "pop {r4-r11, pc}\n\t");
}
#endif

/* Padded row pr (input row pr - pad_top) of channels [4 * cb, 4 * cb + 4) into
 * slot pr % 3 of the four planes (pw int16 per row, 3 * pw per plane). The
 * columns left and right of the input are 0 in every slot already (the caller
 * zeroes the scratch once); a row above or below the input is zeroed here. */
static void dwpl_widen_row(const kiln_depthwise_conv2d_s8_params_t* p, const int8_t* xb, int32_t cb, int32_t pr,
                           int16_t* s, int32_t pw) {
  const int32_t c = p->in_c, iy = pr - p->pad_top, off = p->input_offset;
  int16_t* d0 = s + (pr % 3) * pw;
  int16_t* d1 = d0 + 3 * pw;
  int16_t* d2 = d1 + 3 * pw;
  int16_t* d3 = d2 + 3 * pw;
  int32_t lo = p->pad_left, hi = p->pad_left + p->in_w, pc;
  const int8_t* src;
  if (lo > pw) lo = pw;
  if (hi > pw) hi = pw;
  if (hi < lo) hi = lo;
  if (iy < 0 || iy >= p->in_h) {
    const size_t n = (size_t)(hi - lo) * sizeof(int16_t);
    memset(d0 + lo, 0, n), memset(d1 + lo, 0, n), memset(d2 + lo, 0, n), memset(d3 + lo, 0, n);
    return;
  }
  pc = lo;
  src = xb + ((int64_t)iy * p->in_w + (lo - p->pad_left)) * c + 4 * cb;
#if KILN_S8_DSP
  {
    const uint32_t off2 = ((uint32_t)off & 0xFFFFu) | ((uint32_t)off << 16);
    if ((pc & 1) && pc < hi) {
      d0[pc] = (int16_t)(src[0] + off), d1[pc] = (int16_t)(src[1] + off);
      d2[pc] = (int16_t)(src[2] + off), d3[pc] = (int16_t)(src[3] + off);
      ++pc, src += c;
    }
    /* Two pixels: two word loads, their four channels' pairs as one word per plane. */
    if (pc + 1 < hi) {
      const int32_t n = (hi - pc) / 2;
      int32_t d[3];
      d[0] = (int32_t)(intptr_t)(d0 + pc), d[1] = 3 * pw * 2, d[2] = n;
#if defined(__GNUC__)
      dwpl_pairs_dsp(src, c, off2, d);
      pc += 2 * n, src += 2 * n * c;
#else
      for (; pc + 1 < hi; pc += 2, src += 2 * c) {
        const uint32_t v0 = kiln_s8_load32(src), v1 = kiln_s8_load32(src + c);
        const uint32_t e0 = __sxtab16(off2, v0), o0 = kiln_s8_sxtab16_ror8(off2, v0);
        const uint32_t e1 = __sxtab16(off2, v1), o1 = kiln_s8_sxtab16_ror8(off2, v1);
        kiln_s8_store32(d0 + pc, kiln_s8_pkhbt_lsl16(e0, e1));
        kiln_s8_store32(d1 + pc, kiln_s8_pkhbt_lsl16(o0, o1));
        kiln_s8_store32(d2 + pc, kiln_s8_pkhtb_asr16(e1, e0));
        kiln_s8_store32(d3 + pc, kiln_s8_pkhtb_asr16(o1, o0));
      }
#endif
    }
  }
#endif
  for (; pc < hi; ++pc, src += c) {
    d0[pc] = (int16_t)(src[0] + off), d1[pc] = (int16_t)(src[1] + off);
    d2[pc] = (int16_t)(src[2] + off), d3[pc] = (int16_t)(src[3] + off);
  }
}

static void dwpl_run(const kiln_depthwise_conv2d_s8_params_t* p, const int8_t* x, const int32_t* packed, int8_t* y,
                     int16_t* s) {
  const int32_t c = p->in_c, pw = (int32_t)KILN_S8_DW_PK_ROW(p->out_w), words = 4 + 2 * 9 + 12;
  int32_t rec[4 * DWPL_REC];
  dwpl_ctl_t k;
  int32_t b, cb, oy, l, ky;
  k.plane = 3 * pw * 2;
  k.c = c;
  k.groups = p->out_w / 4;
  k.tail = p->out_w % 4;
  k.corr = p->output_offset != -128;
  memset(s, 0, (size_t)(24 * pw));
  for (b = 0; b < p->batch; ++b) {
    const int8_t* xb = x + (int64_t)b * p->in_h * p->in_w * c;
    int8_t* yb = y + (int64_t)b * p->out_h * p->out_w * c;
    for (cb = 0; cb < c / 4; ++cb) {
      const int32_t* wp = packed + (int64_t)cb * words;
      const int16_t* w16 = (const int16_t*)(const void*)(wp + 4);
      int32_t next = 0; /* padded rows below `next` are in the ring */
      for (l = 0; l < 4; ++l) {
        int32_t* r = rec + l * DWPL_REC;
        r[0] = r[1] = r[2] = r[3] = wp[l];
        for (ky = 0; ky < 3; ++ky) {
          const uint32_t w0 = (uint16_t)w16[(3 * ky) * 4 + l], w1 = (uint16_t)w16[(3 * ky + 1) * 4 + l];
          const uint32_t w2 = (uint16_t)w16[(3 * ky + 2) * 4 + l];
          r[4 + 2 * ky] = (int32_t)(w0 | (w1 << 16));
          r[5 + 2 * ky] = (int32_t)(w1 | (w2 << 16));
        }
        r[10] = wp[4 + 18 + 3 * l], r[11] = wp[4 + 18 + 3 * l + 1], r[12] = wp[4 + 18 + 3 * l + 2];
      }
      for (oy = 0; oy < p->out_h; ++oy) {
        const int32_t r0 = oy * p->stride_h;
        if (next < r0) next = r0;
        for (; next <= r0 + 2; ++next) dwpl_widen_row(p, xb, cb, next, s, pw);
        k.x = s + (r0 % 3) * pw;
        k.d1 = ((r0 + 1) % 3 - r0 % 3) * pw * 2;
        k.d2 = ((r0 + 2) % 3 - r0 % 3) * pw * 2;
        k.w = rec;
        k.y = yb + (int64_t)oy * p->out_w * c + 4 * cb;
#if KILN_S8_DSP && defined(__GNUC__)
        if (k.corr)
          dwpl_row_dsp1(&k);
        else
          dwpl_row_dsp0(&k);
#else
        dwpl_row_c(&k);
#endif
      }
    }
  }
}

kiln_status_t kiln_depthwise_conv2d_s8_pk(const kiln_depthwise_conv2d_s8_params_t* p, const int8_t* x,
                                          const int32_t* packed, int8_t* y, int8_t* scratch) {
  int32_t b, oy, ox, ox_lo, ox_hi, ky, kx;
  dwpk_ctl_t inside, border;
  const int32_t c = p != NULL ? p->in_c : 0;
  if (p == NULL || x == NULL || packed == NULL || y == NULL || scratch == NULL) return KILN_ERR_NULL_POINTER;
  if (p->depth_multiplier != 1 || p->out_c != p->in_c || p->in_c <= 0 || p->in_c % 4 != 0 || p->kernel_h <= 0 ||
      p->kernel_w <= 0 || p->stride_h <= 0 || p->stride_w <= 0 || p->dilation_h <= 0 || p->dilation_w <= 0 ||
      p->act_min != -128 || p->act_max != 127 || !kiln_s8_aligned4(packed))
    return KILN_ERR_BAD_ARGUMENT;
  if (KILN_S8_DW_PK_PLANAR(p)) {
    if (!kiln_s8_aligned4(scratch)) return KILN_ERR_BAD_ARGUMENT;
    dwpl_run(p, x, packed, y, (int16_t*)(void*)scratch);
    return KILN_OK;
  }
  inside.tap_step = p->dilation_w * c;
  inside.row_step = p->dilation_h * p->in_w * c;
  inside.off2 = ((uint32_t)p->input_offset & 0xFFFFu) | ((uint32_t)p->input_offset << 16);
  inside.n_blocks = c / 4;
  inside.x_step = p->stride_w * c;
  inside.n_pix = 1;
  inside.taps = p->kernel_h * p->kernel_w;
  inside.kernel_w = p->kernel_w;
  inside.input_offset = p->input_offset;
  inside.corr = p->output_offset != -128;
  border = inside;
  border.tap_step = c;
  border.row_step = p->kernel_w * c;
  /* Output columns [ox_lo, ox_hi) have every kernel column inside the input. */
  ox_lo = 0;
  while (ox_lo < p->out_w && ox_lo * p->stride_w - p->pad_left < 0) ++ox_lo;
  ox_hi = ox_lo;
  while (ox_hi < p->out_w && ox_hi * p->stride_w - p->pad_left + (p->kernel_w - 1) * p->dilation_w < p->in_w) ++ox_hi;
  for (b = 0; b < p->batch; ++b) {
    const int8_t* xb = x + (int64_t)b * p->in_h * p->in_w * c;
    int8_t* yp = y + (int64_t)b * p->out_h * p->out_w * c;
    for (oy = 0; oy < p->out_h; ++oy) {
      const int32_t iy0 = oy * p->stride_h - p->pad_top;
      const int rows_inside = iy0 >= 0 && iy0 + (p->kernel_h - 1) * p->dilation_h < p->in_h;
      for (ox = 0; ox < p->out_w;) {
        const int32_t ix0 = ox * p->stride_w - p->pad_left;
        if (rows_inside && ox == ox_lo && ox_lo < ox_hi) {
          inside.n_pix = ox_hi - ox_lo;
          dwpk_pixels(xb + ((int64_t)iy0 * p->in_w + ix0) * c, packed, yp, &inside);
          yp += (int64_t)inside.n_pix * c;
          ox = ox_hi;
          continue;
        }
        /* The window with the input zero point (-input_offset) in its padded taps. */
        for (ky = 0; ky < p->kernel_h; ++ky) {
          const int32_t iy = iy0 + ky * p->dilation_h;
          int8_t* dst = scratch + ky * p->kernel_w * c;
          int32_t kx0 = 0, kx1 = p->kernel_w;
          if (iy < 0 || iy >= p->in_h) kx1 = 0;
          while (kx0 < kx1 && ix0 + kx0 * p->dilation_w < 0) ++kx0;
          while (kx1 > kx0 && ix0 + (kx1 - 1) * p->dilation_w >= p->in_w) --kx1;
          if (kx0 >= kx1) {
            memset(dst, -p->input_offset, (size_t)(p->kernel_w * c));
            continue;
          }
          memset(dst, -p->input_offset, (size_t)(kx0 * c));
          if (p->dilation_w == 1) {
            /* The in-bounds taps of a kernel row are one run of input bytes. */
            memcpy(dst + kx0 * c, xb + ((int64_t)iy * p->in_w + ix0 + kx0) * c, (size_t)((kx1 - kx0) * c));
          } else {
            for (kx = kx0; kx < kx1; ++kx)
              memcpy(dst + kx * c, xb + ((int64_t)iy * p->in_w + ix0 + kx * p->dilation_w) * c, (size_t)c);
          }
          memset(dst + kx1 * c, -p->input_offset, (size_t)((p->kernel_w - kx1) * c));
        }
        dwpk_pixels(scratch, packed, yp, &border);
        yp += c;
        ++ox;
      }
    }
  }
  return KILN_OK;
}
