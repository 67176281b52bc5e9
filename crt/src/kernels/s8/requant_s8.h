/*
 * Private helpers of the int8 kernels (conv_s8.c, depthwise_conv_s8.c,
 * fully_connected_s8.c): the exact requantization, the widening of int8
 * activations to int16 with the input offset added, and the register-blocked
 * dot products of the GEMM core (two columns x four output channels, or one
 * column x four output channels).
 *
 * The instruction-set path is chosen here at compile time: __ARM_FEATURE_DSP uses
 * SXTAB16 / SMLAD through arm_acle.h, otherwise portable C. Both read the same
 * weight layout and give identical sums (int32 additions in any order are exact:
 * the compiler bounds the accumulator, see docs/quantization.md).
 *
 * Weight block layout (built by the compiler, generator/lower/ops/qnn_s8_params.cpp):
 * output channels in blocks of four (the last block padded with zero rows); inside
 * a block, for each pair of taps (k, k+1), the four rows' pairs one after another:
 *   w[r0][k] w[r0][k+1] w[r1][k] w[r1][k+1] w[r2][k] ... w[r3][k+1]
 * so the inner loop reads one int32 word per row and tap pair. A row has
 * KILN_S8_ROW_LEN(taps) values (zero padded).
 *
 * Column layouts in scratch: a single column is row_len contiguous int16; a pair
 * of columns (two output pixels) is interleaved by tap pairs:
 *   a[k] a[k+1] b[k] b[k+1] a[k+2] a[k+3] b[k+2] b[k+3] ...
 * Weights and scratch are 4-byte aligned (the kernels check), so the DSP path
 * reads them as words (LDR / LDRD).
 */
#ifndef KILN_REQUANT_S8_H
#define KILN_REQUANT_S8_H

#include <string.h>

#include "kiln/nn_s8.h"

/* Specialised copies (a constant `form`) rely on inlining; GCC and Clang are told. */
#if defined(__GNUC__)
#define KILN_S8_INLINE static inline __attribute__((always_inline))
#else
#define KILN_S8_INLINE static inline
#endif

#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
#include <arm_acle.h>
#define KILN_S8_DSP 1
/* A word of int16 pairs in scratch or weights: may alias the int16 stores. */
typedef uint32_t __attribute__((may_alias, aligned(4))) kiln_s8_word_t;
#else
#define KILN_S8_DSP 0
#if defined(__ARM_FEATURE_SAT) && __ARM_FEATURE_SAT
#include <arm_acle.h> /* __ssat (Cortex-M3) */
#endif
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

/* requant(acc) in the short form: exponent >= 1 and |acc| < 2^30 (see nn_s8.h). */
KILN_S8_INLINE int32_t kiln_s8_requant_short(int32_t acc, const kiln_s8_requant_t* rq) {
  int32_t x;
#if KILN_S8_DSP
  __asm__("smmulr %0, %1, %2" : "=r"(x) : "r"(acc * 2), "r"(rq->multiplier));
#else
  x = (int32_t)(((int64_t)acc * 2 * rq->multiplier + ((int64_t)1 << 31)) >> 32);
#endif
  return (x + (x >> 31) + rq->exponent_round) >> rq->exponent;
}

/* The output parameters every kernel shares. `short_form`: every channel may use
 * kiln_s8_requant_short (checked once per call); `full_range`: the clamp is
 * [-128, 127], a saturation. */
typedef struct {
  int32_t output_offset, act_min, act_max;
  int short_form, full_range;
} kiln_s8_output_t;

/* Whether every accumulator of these channels stays below 2^30 in magnitude
 * (|bias| + taps * 255 * 128) and every channel has a right shift. */
static inline int kiln_s8_short_form_ok(const kiln_s8_requant_t* rq, const int32_t* bias, int32_t channels,
                                        int64_t taps) {
  const int64_t bound = taps * 255 * 128;
  int32_t c;
  if (bound >= ((int64_t)1 << 30)) return 0;
  for (c = 0; c < channels; ++c) {
    const int64_t b = bias != NULL ? (bias[c] < 0 ? -(int64_t)bias[c] : (int64_t)bias[c]) : 0;
    if (rq[c].exponent < 1 || b + bound >= ((int64_t)1 << 30)) return 0;
  }
  return 1;
}

static inline void kiln_s8_output_init(kiln_s8_output_t* o, int32_t output_offset, int32_t act_min, int32_t act_max,
                                       const kiln_s8_requant_t* rq, const int32_t* bias, int32_t channels,
                                       int64_t taps) {
  o->output_offset = output_offset;
  o->act_min = act_min;
  o->act_max = act_max;
  o->short_form = kiln_s8_short_form_ok(rq, bias, channels, taps);
  o->full_range = act_min == -128 && act_max == 127;
}

/* One output element. `form` is a compile-time constant where this is inlined
 * (callers branch once per block on KILN_S8_FORM(o)): bit 0 short requant, bit 1
 * full-range clamp. */
#define KILN_S8_FORM(o) (((o)->short_form ? 1 : 0) | ((o)->full_range ? 2 : 0))

KILN_S8_INLINE int8_t kiln_s8_output_as(int32_t acc, const kiln_s8_requant_t* rq, const kiln_s8_output_t* o,
                                       int form) {
  int32_t v = o->output_offset + ((form & 1) ? kiln_s8_requant_short(acc, rq) : kiln_s8_requant(acc, rq));
#if defined(__ARM_FEATURE_SAT) && __ARM_FEATURE_SAT
  if (form & 2) return (int8_t)__ssat(v, 8);
#endif
  v = v < o->act_min ? o->act_min : v;
  return (int8_t)(v > o->act_max ? o->act_max : v);
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
#endif

/*
 * Widens n int8 values to int16 with `offset` added, into dst in pairs: pair j
 * (values 2j, 2j+1) goes to dst + j * pair_stride. pair_stride is 2 for a single
 * column and 4 for an interleaved pair of columns. n must be even.
 */
static inline void kiln_s8_widen_pairs(int16_t* dst, const int8_t* src, int32_t n, int32_t offset,
                                       int32_t pair_stride) {
  int32_t i = 0;
#if KILN_S8_DSP
  const uint32_t off2 = ((uint32_t)offset & 0xFFFFu) | ((uint32_t)offset << 16);
  for (; i + 4 <= n; i += 4) {
    const uint32_t v = kiln_s8_load32(src + i);
    const uint32_t even = __sxtab16(off2, v);               /* x0 x2 */
    const uint32_t odd = kiln_s8_sxtab16_ror8(off2, v);     /* x1 x3 */
    *(kiln_s8_word_t*)(void*)dst = (even & 0xFFFFu) | (odd << 16); /* x0 x1: PKHBT */
    *(kiln_s8_word_t*)(void*)(dst + pair_stride) = (even >> 16) | (odd & 0xFFFF0000u); /* x2 x3: PKHTB */
    dst += 2 * pair_stride;
  }
#endif
  for (; i < n; i += 2) {
    dst[0] = (int16_t)(src[i] + offset);
    dst[1] = (int16_t)(src[i + 1] + offset);
    dst += pair_stride;
  }
}

/* Writes n (even) zeros in pairs, as kiln_s8_widen_pairs would place them. */
static inline void kiln_s8_zero_pairs(int16_t* dst, int32_t n, int32_t pair_stride) {
  int32_t i;
  for (i = 0; i < n; i += 2) {
    dst[0] = 0;
    dst[1] = 0;
    dst += pair_stride;
  }
}

/* A whole column from one contiguous run of n int8 values (any n), zero padded to
 * row_len (even, >= n). */
static inline void kiln_s8_widen_row(int16_t* dst, const int8_t* src, int32_t n, int32_t offset, int32_t pair_stride,
                                     int32_t row_len) {
  int32_t done = n & ~1;
  kiln_s8_widen_pairs(dst, src, done, offset, pair_stride);
  dst += (done / 2) * pair_stride;
  if (n & 1) {
    dst[0] = (int16_t)(src[n - 1] + offset);
    dst[1] = 0;
    dst += pair_stride;
    done += 2;
  }
  kiln_s8_zero_pairs(dst, row_len - done, pair_stride);
}

/*
 * Dot products of a block of four weight rows (layout above) with two interleaved
 * columns: acc[j][r] += col_j . row_r over row_len (a multiple of 4) values.
 */
KILN_S8_INLINE void kiln_s8_dot_2x4(const int16_t* cols, const int16_t* wblock, int32_t row_len, int32_t acc[2][4]) {
  int32_t a00 = acc[0][0], a01 = acc[0][1], a02 = acc[0][2], a03 = acc[0][3];
  int32_t a10 = acc[1][0], a11 = acc[1][1], a12 = acc[1][2], a13 = acc[1][3];
#if KILN_S8_DSP
  const kiln_s8_word_t* c = (const kiln_s8_word_t*)(const void*)cols;
  const kiln_s8_word_t* w = (const kiln_s8_word_t*)(const void*)wblock;
  const kiln_s8_word_t* end = c + row_len; /* two columns: row_len words */
  while (c < end) {                        /* two tap pairs per pass */
    uint32_t x0 = c[0], x1 = c[1];
    a00 = __smlad(x0, w[0], a00);
    a10 = __smlad(x1, w[0], a10);
    a01 = __smlad(x0, w[1], a01);
    a11 = __smlad(x1, w[1], a11);
    a02 = __smlad(x0, w[2], a02);
    a12 = __smlad(x1, w[2], a12);
    a03 = __smlad(x0, w[3], a03);
    a13 = __smlad(x1, w[3], a13);
    x0 = c[2], x1 = c[3];
    a00 = __smlad(x0, w[4], a00);
    a10 = __smlad(x1, w[4], a10);
    a01 = __smlad(x0, w[5], a01);
    a11 = __smlad(x1, w[5], a11);
    a02 = __smlad(x0, w[6], a02);
    a12 = __smlad(x1, w[6], a12);
    a03 = __smlad(x0, w[7], a03);
    a13 = __smlad(x1, w[7], a13);
    c += 4;
    w += 8;
  }
#else
  const int16_t* c = cols;
  const int16_t* w = wblock;
  const int16_t* end = cols + 2 * row_len;
  while (c < end) {
    const int32_t x0 = c[0], x0b = c[1], x1 = c[2], x1b = c[3];
    a00 += x0 * w[0] + x0b * w[1];
    a10 += x1 * w[0] + x1b * w[1];
    a01 += x0 * w[2] + x0b * w[3];
    a11 += x1 * w[2] + x1b * w[3];
    a02 += x0 * w[4] + x0b * w[5];
    a12 += x1 * w[4] + x1b * w[5];
    a03 += x0 * w[6] + x0b * w[7];
    a13 += x1 * w[6] + x1b * w[7];
    c += 4;
    w += 8;
  }
#endif
  acc[0][0] = a00, acc[0][1] = a01, acc[0][2] = a02, acc[0][3] = a03;
  acc[1][0] = a10, acc[1][1] = a11, acc[1][2] = a12, acc[1][3] = a13;
}

/* As kiln_s8_dot_2x4 for one contiguous column. */
KILN_S8_INLINE void kiln_s8_dot_1x4(const int16_t* col, const int16_t* wblock, int32_t row_len, int32_t acc[4]) {
  int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
#if KILN_S8_DSP
  const kiln_s8_word_t* c = (const kiln_s8_word_t*)(const void*)col;
  const kiln_s8_word_t* w = (const kiln_s8_word_t*)(const void*)wblock;
  const kiln_s8_word_t* end = c + row_len / 2;
  while (c < end) {
    const uint32_t x0 = c[0], x1 = c[1];
    a0 = __smlad(x0, w[0], a0);
    a1 = __smlad(x0, w[1], a1);
    a2 = __smlad(x0, w[2], a2);
    a3 = __smlad(x0, w[3], a3);
    a0 = __smlad(x1, w[4], a0);
    a1 = __smlad(x1, w[5], a1);
    a2 = __smlad(x1, w[6], a2);
    a3 = __smlad(x1, w[7], a3);
    c += 2;
    w += 8;
  }
#else
  const int16_t* c = col;
  const int16_t* w = wblock;
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
  acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3;
}

/* Requantizes and stores n (<= 4) channels of one or two columns. */
KILN_S8_INLINE void kiln_s8_store_block(int32_t acc[2][4], const kiln_s8_requant_t* rq, const kiln_s8_output_t* o,
                                       int32_t n, int8_t* y0, int8_t* y1, int form) {
  int32_t r;
  for (r = 0; r < n; ++r) {
    y0[r] = kiln_s8_output_as(acc[0][r], &rq[r], o, form);
    if (y1 != NULL) y1[r] = kiln_s8_output_as(acc[1][r], &rq[r], o, form);
  }
}

/* kiln_s8_store_block with the form of `o` as a constant in each copy. */
static inline void kiln_s8_store_block_any(int32_t acc[2][4], const kiln_s8_requant_t* rq,
                                           const kiln_s8_output_t* o, int32_t n, int8_t* y0, int8_t* y1) {
  switch (KILN_S8_FORM(o)) {
    case 3: kiln_s8_store_block(acc, rq, o, n, y0, y1, 3); break;
    case 2: kiln_s8_store_block(acc, rq, o, n, y0, y1, 2); break;
    case 1: kiln_s8_store_block(acc, rq, o, n, y0, y1, 1); break;
    default: kiln_s8_store_block(acc, rq, o, n, y0, y1, 0); break;
  }
}

/*
 * The GEMM core: n_out output channels (weights in blocks of four, bias and rq
 * for those channels) for one column (y1 == NULL; `cols` contiguous) or two
 * interleaved columns (outputs to y0 and y1).
 */
static inline void kiln_s8_gemm_columns(const int16_t* cols, int32_t row_len, const int16_t* w, const int32_t* bias,
                                        const kiln_s8_requant_t* rq, int32_t n_out, const kiln_s8_output_t* o,
                                        int8_t* y0, int8_t* y1) {
  int32_t oc, r;
  for (oc = 0; oc < n_out; oc += 4) {
    const int32_t n = n_out - oc < 4 ? n_out - oc : 4;
    const int16_t* wblock = w + (int64_t)oc * row_len;
    int32_t acc[2][4];
    for (r = 0; r < 4; ++r) acc[0][r] = acc[1][r] = (bias != NULL && r < n) ? bias[oc + r] : 0;
    if (y1 != NULL)
      kiln_s8_dot_2x4(cols, wblock, row_len, acc);
    else
      kiln_s8_dot_1x4(cols, wblock, row_len, acc[0]);
    kiln_s8_store_block_any(acc, rq + oc, o, n, y0 + oc, y1 != NULL ? y1 + oc : NULL);
  }
}

#endif /* KILN_REQUANT_S8_H */
