/*
 * Private helpers of the int8 kernels (conv_s8.c, depthwise_conv_s8.c,
 * fully_connected_s8.c): the exact requantization, the widening of int8
 * activations to int16 with the input offset added, and the GEMM core (one
 * int16 column against every block of four weight rows, accumulators in
 * registers, the requantization of each block inline).
 *
 * The instruction-set path is chosen in s8_dsp.h (KILN_S8_DSP; KILN_S8_PORTABLE
 * forces portable C). Both paths read the same weight layout and give identical
 * sums (int32 additions in any order are exact: the compiler bounds the
 * accumulator, see docs/quantization.md).
 *
 * Weight block layout (built by the compiler, generator/lower/ops/qnn_s8_params.cpp):
 * output channels in blocks of four (the last block padded with zero rows); inside
 * a block, for each pair of taps (k, k+1), the four rows' pairs one after another:
 *   w[r0][k] w[r0][k+1] w[r1][k] w[r1][k+1] w[r2][k] ... w[r3][k+1]
 * so one LDM of four words gives a tap pair of all four rows (four SMLAD operands).
 * A row has KILN_S8_ROW_LEN(taps) values (zero padded).
 *
 * A column in scratch is row_len contiguous int16 (the taps with the input offset
 * added, padded taps and the tail 0). Weights and scratch are 4-byte aligned (the
 * kernels check), so the DSP path reads them as words (LDRD / LDM).
 */
#ifndef KILN_REQUANT_S8_H
#define KILN_REQUANT_S8_H

#include <string.h>

#include "kiln/nn_s8.h"
#include "../asm_guard.h"
#include "s8_dsp.h"

/* Specialised copies (a constant `form`) rely on inlining; GCC and Clang are told. */
#if defined(__GNUC__)
#define KILN_S8_INLINE static inline __attribute__((always_inline))
#define KILN_S8_NOINLINE static __attribute__((noinline, unused))
#else
#define KILN_S8_INLINE static inline
#define KILN_S8_NOINLINE static
#endif

#if KILN_S8_DSP
/* A word of int16 pairs in scratch or weights: may alias the int16 stores. */
typedef uint32_t __attribute__((may_alias, aligned(4))) kiln_s8_word_t;
#endif

/* requant(acc) of kiln_s8_requant_t in the general form (any shift), saturated to
 * +-2^30 so that adding an output offset cannot overflow and clamps exactly as
 * TFLite's saturating arithmetic. */
KILN_S8_INLINE int32_t kiln_s8_requant(int32_t acc, const kiln_s8_requant_t* rq) {
  const int64_t p = (int64_t)acc * rq->multiplier + (acc < 0 ? rq->round_neg : rq->round_pos);
  int64_t v;
  if (rq->shift >= 32) return (int32_t)(p >> 32) >> (rq->shift - 32);
  v = p >> rq->shift;
  if (v > (int64_t)1 << 30) return (int32_t)1 << 30;
  if (v < -((int64_t)1 << 30)) return -((int32_t)1 << 30);
  return (int32_t)v;
}

#if KILN_S8_DSP
/* The short form's asm reads multiplier, round_offset and exponent with one LDM. */
KILN_ASM_OFFSET(kiln_s8_requant_t, multiplier, 0);
KILN_ASM_OFFSET(kiln_s8_requant_t, round_offset, 4);
KILN_ASM_OFFSET(kiln_s8_requant_t, exponent, 8);
#endif

/* output_offset + requant(acc) in the short form: exponent in [1, 22], |acc| < 2^30
 * and round_offset carrying the output offset (see nn_s8.h). On the DSP path one
 * LDM of the multiplier, round_offset and exponent, then LSL, ADD, SMMLAR, ASR. */
KILN_S8_INLINE int32_t kiln_s8_requant_short(int32_t acc, const kiln_s8_requant_t* rq) {
#if KILN_S8_DSP
  /* LDM needs its registers in ascending order: they are pinned. */
  register int32_t m __asm__("r8");
  register int32_t r __asm__("r9");
  register int32_t e __asm__("r10");
  __asm__("ldm %[rq], {%[m], %[r], %[e]}\n\t"
          "add %[r], %[r], %[acc], asr #31\n\t"
          "lsl %[acc], %[acc], #1\n\t"
          "smmlar %[acc], %[acc], %[m], %[r]\n\t"
          "asr %[acc], %[acc], %[e]"
          : [acc] "+r"(acc), [m] "=&r"(m), [r] "=&r"(r), [e] "=&r"(e)
          : [rq] "r"(rq)
          : "memory");
  return acc;
#elif KILN_S8_V6M
  /* ARMv6-M has no 32x32 -> 64-bit multiply (the portable line below calls
   * __aeabi_lmul): the same rounded high word of (acc * 2) * multiplier from four
   * 16x16-bit products, each exact in 32 bits (|acc * 2| < 2^31 in the short
   * form). With a = ah 2^16 + al, m = mh 2^16 + ml, the product plus 2^31 is
   * (ah mh + mid1 >> 16 + mid2 >> 16) 2^32 + t 2^16 + (al ml mod 2^16), where the
   * carry word t < 2^18. */
  const int32_t a = acc * 2, m = rq->multiplier;
  const int32_t ah = a >> 16, mh = m >> 16;
  const uint32_t al = (uint32_t)a & 0xFFFFu, ml = (uint32_t)m & 0xFFFFu;
  const int32_t mid1 = ah * (int32_t)ml, mid2 = (int32_t)al * mh;
  const uint32_t t = ((al * ml) >> 16) + ((uint32_t)mid1 & 0xFFFFu) + ((uint32_t)mid2 & 0xFFFFu) + 0x8000u;
  const int32_t x = ah * mh + (mid1 >> 16) + (mid2 >> 16) + (int32_t)(t >> 16);
  return (x + (acc < 0 ? -1 : 0) + rq->round_offset) >> rq->exponent;
#else
  const int32_t x = (int32_t)(((int64_t)acc * 2 * rq->multiplier + ((int64_t)1 << 31)) >> 32);
  return (x + (acc < 0 ? -1 : 0) + rq->round_offset) >> rq->exponent;
#endif
}

/* The output parameters every kernel shares. `short_form`: every channel may use
 * kiln_s8_requant_short (checked once per call); `full_range`: the clamp is
 * [-128, 127], a saturation. */
typedef struct {
  int32_t output_offset, act_min, act_max;
  int short_form, full_range;
} kiln_s8_output_t;

/* Whether every accumulator of these channels stays below 2^30 in magnitude
 * (|bias| + taps * 255 * 128) and every channel has a right shift of at most 22
 * and a round_offset for this output offset. */
static inline int kiln_s8_short_form_ok(const kiln_s8_requant_t* rq, const int32_t* bias, int32_t channels,
                                        int64_t taps, int32_t output_offset) {
  const int64_t bound = taps * 255 * 128;
  int32_t c;
  if (bound >= ((int64_t)1 << 30)) return 0;
  for (c = 0; c < channels; ++c) {
    const int64_t b = bias != NULL ? (bias[c] < 0 ? -(int64_t)bias[c] : (int64_t)bias[c]) : 0;
    const int32_t e = rq[c].exponent;
    if (e < 1 || e > 22 || b + bound >= ((int64_t)1 << 30)) return 0;
    if (rq[c].round_offset != (int32_t)(((int64_t)1 << (e - 1)) + (int64_t)output_offset * ((int64_t)1 << e)))
      return 0;
  }
  return 1;
}

static inline void kiln_s8_output_init(kiln_s8_output_t* o, int32_t output_offset, int32_t act_min, int32_t act_max,
                                       const kiln_s8_requant_t* rq, const int32_t* bias, int32_t channels,
                                       int64_t taps) {
  o->output_offset = output_offset;
  o->act_min = act_min;
  o->act_max = act_max;
  o->short_form = kiln_s8_short_form_ok(rq, bias, channels, taps, output_offset);
  o->full_range = act_min == -128 && act_max == 127;
}

/* One output element. `form` is a compile-time constant where this is inlined
 * (callers branch once per block on KILN_S8_FORM(o)): bit 0 short requant, bit 1
 * full-range clamp. */
#define KILN_S8_FORM(o) (((o)->short_form ? 1 : 0) | ((o)->full_range ? 2 : 0))

KILN_S8_INLINE int8_t kiln_s8_output_as(int32_t acc, const kiln_s8_requant_t* rq, const kiln_s8_output_t* o,
                                       int form) {
  int32_t v = (form & 1) ? kiln_s8_requant_short(acc, rq) : o->output_offset + kiln_s8_requant(acc, rq);
#if defined(__ARM_FEATURE_SAT) && __ARM_FEATURE_SAT
  if (form & 2) return (int8_t)__ssat(v, 8);
#endif
  v = v < o->act_min ? o->act_min : v;
  return (int8_t)(v > o->act_max ? o->act_max : v);
}

/* kiln_s8_output_as of channel *rq, then *rq moves to the next channel. On the DSP
 * path the short form advances the pointer inside its asm (one ADD; GCC would
 * otherwise form each channel's address in a spare register and copy it). */
KILN_S8_INLINE int8_t kiln_s8_output_next(int32_t acc, const kiln_s8_requant_t** rqp, const kiln_s8_output_t* o,
                                         int form) {
#if KILN_S8_DSP
  if (form & 1) {
    const kiln_s8_requant_t* rq = *rqp;
    register int32_t m __asm__("r8");
    register int32_t r __asm__("r9");
    register int32_t e __asm__("r10");
    int32_t v = acc;
    __asm__("ldm %[rq], {%[m], %[r], %[e]}\n\t"
            "add %[r], %[r], %[v], asr #31\n\t"
            "lsl %[v], %[v], #1\n\t"
            "smmlar %[v], %[v], %[m], %[r]\n\t"
            "asr %[v], %[v], %[e]\n\t"
            "add %[rq], %[rq], %[size]"
            : [v] "+r"(v), [rq] "+r"(rq), [m] "=&r"(m), [r] "=&r"(r), [e] "=&r"(e)
            : [size] "i"(sizeof(kiln_s8_requant_t))
            : "memory");
    *rqp = rq;
    if (form & 2) return (int8_t)__ssat(v, 8);
    v = v < o->act_min ? o->act_min : v;
    return (int8_t)(v > o->act_max ? o->act_max : v);
  }
#endif
  return kiln_s8_output_as(acc, (*rqp)++, o, form);
}

static inline int8_t kiln_s8_output(int32_t acc, const kiln_s8_requant_t* rq, const kiln_s8_output_t* o) {
  return kiln_s8_output_as(acc, rq, o, 0);
}

static inline uint32_t kiln_s8_load32(const void* p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}

static inline void kiln_s8_store32(void* p, uint32_t v) { memcpy(p, &v, 4); }

static inline int kiln_s8_aligned4(const void* p) { return ((uintptr_t)p & 3u) == 0u; }

#if KILN_S8_DSP
/* Bytes 1 and 3 of b sign-extended and added to the halves of a (SXTAB16 with ROR #8). */
static inline uint32_t kiln_s8_sxtab16_ror8(uint32_t a, uint32_t b) {
  uint32_t r;
  __asm__("sxtab16 %0, %1, %2, ror #8" : "=r"(r) : "r"(a), "r"(b));
  return r;
}

/* Low half of a, low half of b moved high (PKHBT a, b, LSL #16): GCC does not
 * form PKH by itself. */
static inline uint32_t kiln_s8_pkhbt_lsl16(uint32_t a, uint32_t b) {
  uint32_t r;
  __asm__("pkhbt %0, %1, %2, lsl #16" : "=r"(r) : "r"(a), "r"(b));
  return r;
}

/* High half of a, high half of b moved low (PKHTB a, b, ASR #16). */
static inline uint32_t kiln_s8_pkhtb_asr16(uint32_t a, uint32_t b) {
  uint32_t r;
  __asm__("pkhtb %0, %1, %2, asr #16" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
#endif

/*
 * dst[i] = src[i] + offset for i < n (int8 -> int16). dst needs only int16
 * alignment: the DSP path widens four values per word load (two SXTAB16, two PKH)
 * and stores them as two words at any halfword position (unaligned STR is
 * architectural on Cortex-M3 and up).
 */
static inline void kiln_s8_widen(int16_t* dst, const int8_t* src, int32_t n, int32_t offset) {
  int32_t i = 0;
#if KILN_S8_DSP
  const uint32_t off2 = ((uint32_t)offset & 0xFFFFu) | ((uint32_t)offset << 16);
  for (; i + 4 <= n; i += 4) {
    const uint32_t v = kiln_s8_load32(src + i);
    const uint32_t even = __sxtab16(off2, v);           /* x0 x2 */
    const uint32_t odd = kiln_s8_sxtab16_ror8(off2, v); /* x1 x3 */
    kiln_s8_store32(dst + i, kiln_s8_pkhbt_lsl16(even, odd));
    kiln_s8_store32(dst + i + 2, kiln_s8_pkhtb_asr16(odd, even));
  }
#endif
  for (; i < n; ++i) dst[i] = (int16_t)(src[i] + offset);
}

/* n int16 zeros (padded taps). */
static inline void kiln_s8_zero(int16_t* dst, int32_t n) {
  int32_t i;
  for (i = 0; i < n; ++i) dst[i] = 0;
}

/*
 * acc[r] += col . row r of one weight block, over row_len (a multiple of 4)
 * values; returns the next block. On the DSP path one asm loop: per two tap pairs
 * an LDRD of the column and two LDM of the block's four rows, eight SMLAD (11
 * instructions for 16 multiply-accumulates), 16 taps per pass after 4 and 8 taps
 * for a row length that is not a multiple of 16.
 */
KILN_S8_INLINE const int16_t* kiln_s8_dot_1x4(const int16_t* col, const int16_t* wblock, int32_t row_len,
                                             int32_t* acc0, int32_t* acc1, int32_t* acc2, int32_t* acc3) {
  int32_t a0 = *acc0, a1 = *acc1, a2 = *acc2, a3 = *acc3;
  const int16_t* c = col;
  const int16_t* w = wblock;
#if KILN_S8_DSP
  const int16_t* end = col + row_len;
  /* LDM needs its registers in ascending order: they are pinned. */
  register uint32_t w0 __asm__("r8");
  register uint32_t w1 __asm__("r9");
  register uint32_t w2 __asm__("r10");
  register uint32_t w3 __asm__("r11");
  uint32_t x0, x1;
#define KILN_S8_1X4_STEP                                   \
  "ldrd %[x0], %[x1], [%[c]], #8\n\t"                      \
  "ldmia %[w]!, {%[w0], %[w1], %[w2], %[w3]}\n\t"          \
  "smlad %[a0], %[x0], %[w0], %[a0]\n\t"                   \
  "smlad %[a1], %[x0], %[w1], %[a1]\n\t"                   \
  "smlad %[a2], %[x0], %[w2], %[a2]\n\t"                   \
  "smlad %[a3], %[x0], %[w3], %[a3]\n\t"                   \
  "ldmia %[w]!, {%[w0], %[w1], %[w2], %[w3]}\n\t"          \
  "smlad %[a0], %[x1], %[w0], %[a0]\n\t"                   \
  "smlad %[a1], %[x1], %[w1], %[a1]\n\t"                   \
  "smlad %[a2], %[x1], %[w2], %[a2]\n\t"                   \
  "smlad %[a3], %[x1], %[w3], %[a3]\n\t"
#define KILN_S8_1X4_OPERANDS                                                                                  \
  [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [c] "+r"(c), [w] "+r"(w), [x0] "=&r"(x0),     \
      [x1] "=&r"(x1), [w0] "=&r"(w0), [w1] "=&r"(w1), [w2] "=&r"(w2), [w3] "=&r"(w3)
  if (row_len & 4) __asm__(KILN_S8_1X4_STEP : KILN_S8_1X4_OPERANDS : : "memory");
  if (row_len & 8) __asm__(KILN_S8_1X4_STEP KILN_S8_1X4_STEP : KILN_S8_1X4_OPERANDS : : "memory");
  if (c != end)
    __asm__("1:\n\t" KILN_S8_1X4_STEP KILN_S8_1X4_STEP KILN_S8_1X4_STEP KILN_S8_1X4_STEP
            "cmp %[c], %[end]\n\t"
            "bne 1b"
            : KILN_S8_1X4_OPERANDS
            : [end] "r"(end)
            : "cc", "memory");
#undef KILN_S8_1X4_STEP
#undef KILN_S8_1X4_OPERANDS
#elif KILN_S8_V6M
  /* Thumb-1 loads a halfword with a register offset only and has eight low
   * registers, so GCC's code for the loop below forms offsets and spills (about 60
   * instructions per tap pair). Here per tap pair: one LDM of the column's word,
   * SXTH and ASRS to split it, two LDM of the four rows' words, and per row SXTH,
   * ASRS, two MULS, ADDS and an ADD into its accumulator, which lives in a high
   * register (29 instructions for 8 multiply-accumulates). The LDM destinations
   * are pinned to ascending registers; row_len is a multiple of 4, so each pass of
   * two tap pairs ends exactly at `end`. */
  const int16_t* end = col + row_len;
  register uint32_t t __asm__("r4");
  register uint32_t u __asm__("r5");
  uint32_t x0, x1, v;
#define KILN_S8_V6M_ROW(wr, acc)       \
  "sxth %[v], " wr "\n\t"             \
  "asrs " wr ", " wr ", #16\n\t"       \
  "muls %[v], %[x0], %[v]\n\t"        \
  "muls " wr ", %[x1], " wr "\n\t"     \
  "adds %[v], %[v], " wr "\n\t"       \
  "add " acc ", " acc ", %[v]\n\t"
#define KILN_S8_V6M_PAIR                                                              \
  "ldmia %[c]!, {%[x1]}\n\t"                                                         \
  "sxth %[x0], %[x1]\n\t"                                                            \
  "asrs %[x1], %[x1], #16\n\t"                                                       \
  "ldmia %[w]!, {%[t], %[u]}\n\t" KILN_S8_V6M_ROW("%[t]", "%[a0]") KILN_S8_V6M_ROW("%[u]", "%[a1]") \
  "ldmia %[w]!, {%[t], %[u]}\n\t" KILN_S8_V6M_ROW("%[t]", "%[a2]") KILN_S8_V6M_ROW("%[u]", "%[a3]")
  if (c != end)
    __asm__(".syntax unified\n"
            "1:\n\t" KILN_S8_V6M_PAIR KILN_S8_V6M_PAIR
            "cmp %[c], %[end]\n\t"
            "bne 1b"
            : [a0] "+h"(a0), [a1] "+h"(a1), [a2] "+h"(a2), [a3] "+h"(a3), [c] "+l"(c), [w] "+l"(w),
              [x0] "=&l"(x0), [x1] "=&l"(x1), [v] "=&l"(v), [t] "=&l"(t), [u] "=&l"(u)
            : [end] "h"(end)
            : "cc", "memory");
#undef KILN_S8_V6M_ROW
#undef KILN_S8_V6M_PAIR
#else
  const int16_t* end = col + row_len;
  while (c < end) {
    const int32_t x0 = c[0], x1 = c[1];
    a0 += x0 * w[0] + x1 * w[1];
    a1 += x0 * w[2] + x1 * w[3];
    a2 += x0 * w[4] + x1 * w[5];
    a3 += x0 * w[6] + x1 * w[7];
    c += 2;
    w += 8;
  }
#endif
  *acc0 = a0, *acc1 = a1, *acc2 = a2, *acc3 = a3;
  return w;
}

/*
 * What the GEMM core needs for every column of one call. A column is `runs` runs
 * of `run_len` int8 values (run r of column j at x + j * x_step + r * run_step),
 * widened one after another into col and zero padded to row_len: a 1x1
 * convolution or a fully connected layer has one run per column (the pixel's
 * channels, the input row), a convolution window inside the input one per kernel
 * row; run_len 0 means the caller wrote the column into col. bias may be NULL.
 */
typedef struct {
  int32_t row_len;           /* int16 per column and weight row, a multiple of 4 */
  int32_t n_out;             /* output channels */
  const int16_t* w;          /* weight blocks */
  const int32_t* bias;
  const kiln_s8_requant_t* rq;
  kiln_s8_output_t out;
  int32_t runs, run_len, run_step, x_step, y_step, input_offset;
} kiln_s8_gemm_t;

/* Every full block of four channels of one column, `form` constant (bit 2: no bias). */
KILN_S8_INLINE void kiln_s8_full_blocks(const kiln_s8_gemm_t* g, const int16_t* col, int8_t* y, int form) {
  /* Copies the asm's memory clobber does not force to be reloaded per output. */
  const kiln_s8_output_t out = g->out;
  const int32_t row_len = g->row_len;
  const int16_t* w = g->w;
  const int32_t* b = g->bias;
  const kiln_s8_requant_t* rq = g->rq;
  int8_t* const y_end = y + g->n_out / 4 * 4;
  for (; y != y_end; y += 4) {
    int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    if (!(form & 4)) a0 = b[0], a1 = b[1], a2 = b[2], a3 = b[3], b += 4;
    w = kiln_s8_dot_1x4(col, w, row_len, &a0, &a1, &a2, &a3);
    y[0] = kiln_s8_output_next(a0, &rq, &out, form & 3);
    y[1] = kiln_s8_output_next(a1, &rq, &out, form & 3);
    y[2] = kiln_s8_output_next(a2, &rq, &out, form & 3);
    y[3] = kiln_s8_output_next(a3, &rq, &out, form & 3);
  }
}

/* Channels [n_out / 4 * 4, n_out) (fewer than four): the last block, zero rows in its weights. */
KILN_S8_NOINLINE void kiln_s8_partial_block(const kiln_s8_gemm_t* g, const int16_t* col, int8_t* y) {
  const int32_t n_full = g->n_out / 4 * 4;
  int32_t acc[4];
  int32_t r;
  for (r = 0; r < 4; ++r) acc[r] = (g->bias != NULL && n_full + r < g->n_out) ? g->bias[n_full + r] : 0;
  (void)kiln_s8_dot_1x4(col, g->w + (int64_t)n_full * g->row_len, g->row_len, &acc[0], &acc[1], &acc[2], &acc[3]);
  for (r = 0; n_full + r < g->n_out; ++r) y[n_full + r] = kiln_s8_output(acc[r], &g->rq[n_full + r], &g->out);
}

/* n_cols columns (see kiln_s8_gemm_t), outputs of column j at y + j * y_step. */
KILN_S8_INLINE void kiln_s8_gemm_run(const kiln_s8_gemm_t* g, const int8_t* x, int32_t n_cols, int16_t* col,
                                     int8_t* y, int form) {
  /* Locals: the asm's memory clobber would reload fields through g. */
  const int32_t runs = g->runs, run_len = g->run_len, run_step = g->run_step, x_step = g->x_step;
  const int32_t y_step = g->y_step, input_offset = g->input_offset;
  const int32_t tail = g->row_len - runs * run_len; /* 0..3 zeros after the runs */
  const int full = g->n_out >= 4, partial = g->n_out % 4 != 0;
  int32_t j, r;
  for (j = 0; j < n_cols; ++j, x += x_step, y += y_step) {
    if (run_len > 0) {
      const int8_t* src = x;
      int16_t* dst = col;
      for (r = 0; r < runs; ++r, src += run_step, dst += run_len) kiln_s8_widen(dst, src, run_len, input_offset);
      if (tail > 0) dst[0] = 0;
      if (tail > 1) dst[1] = 0;
      if (tail > 2) dst[2] = 0;
    }
    if (full) kiln_s8_full_blocks(g, col, y, form);
    if (partial) kiln_s8_partial_block(g, col, y);
  }
}

/* One out-of-line copy per form: the asm loop's 12 registers never meet the
 * caller's live values. */
#define KILN_S8_GEMM_RUN_COPY(form)                                                                             \
  KILN_S8_NOINLINE void kiln_s8_gemm_run_##form(const kiln_s8_gemm_t* g, const int8_t* x, int32_t n_cols,      \
                                                int16_t* col, int8_t* y) {                                      \
    kiln_s8_gemm_run(g, x, n_cols, col, y, form);                                                               \
  }
KILN_S8_GEMM_RUN_COPY(0)
KILN_S8_GEMM_RUN_COPY(1)
KILN_S8_GEMM_RUN_COPY(2)
KILN_S8_GEMM_RUN_COPY(3)
KILN_S8_GEMM_RUN_COPY(4)
KILN_S8_GEMM_RUN_COPY(5)
KILN_S8_GEMM_RUN_COPY(6)
KILN_S8_GEMM_RUN_COPY(7)
#undef KILN_S8_GEMM_RUN_COPY

/* The channels' part of kiln_s8_gemm_t; the column geometry is 0 (the caller
 * writes each column). */
static inline void kiln_s8_gemm_init(kiln_s8_gemm_t* g, int32_t row_len, int32_t n_out, const int16_t* w,
                                     const int32_t* bias, const kiln_s8_requant_t* rq, const kiln_s8_output_t* o) {
  g->row_len = row_len;
  g->n_out = n_out;
  g->w = w;
  g->bias = bias;
  g->rq = rq;
  g->out = *o;
  g->runs = g->run_len = g->run_step = g->x_step = g->y_step = g->input_offset = 0;
}

/* The GEMM core on n_cols columns, its form chosen once. */
static inline void kiln_s8_gemm(const kiln_s8_gemm_t* g, const int8_t* x, int32_t n_cols, int16_t* col, int8_t* y) {
  switch (KILN_S8_FORM(&g->out) | (g->bias == NULL ? 4 : 0)) {
    case 7: kiln_s8_gemm_run_7(g, x, n_cols, col, y); break;
    case 6: kiln_s8_gemm_run_6(g, x, n_cols, col, y); break;
    case 5: kiln_s8_gemm_run_5(g, x, n_cols, col, y); break;
    case 4: kiln_s8_gemm_run_4(g, x, n_cols, col, y); break;
    case 3: kiln_s8_gemm_run_3(g, x, n_cols, col, y); break;
    case 2: kiln_s8_gemm_run_2(g, x, n_cols, col, y); break;
    case 1: kiln_s8_gemm_run_1(g, x, n_cols, col, y); break;
    default: kiln_s8_gemm_run_0(g, x, n_cols, col, y); break;
  }
}

#endif /* KILN_REQUANT_S8_H */
