/*
 * Private helpers of the int8 kernels (conv_s8.c, depthwise_conv_s8.c,
 * fully_connected_s8.c): the exact requantization, the widening of int8
 * activations to int16 with the input offset added, and the register-blocked
 * dot products of the GEMM core (two columns x four output channels, or one
 * column x four output channels).
 *
 * The instruction-set path is chosen here at compile time: __ARM_FEATURE_DSP uses
 * SXTAB16 / PKHBT / SMLAD through arm_acle.h, otherwise portable C. Both read the
 * same weight layout and give identical sums (int32 additions in any order are
 * exact: the compiler bounds the accumulator, see docs/quantization.md).
 *
 * Weight block layout (built by the compiler, generator/lower/ops/qnn_conv.cpp):
 * output channels in blocks of four (the last block padded with zero rows); inside
 * a block, for each pair of taps (k, k+1), the four rows' pairs one after another:
 *   w[r0][k] w[r0][k+1] w[r1][k] w[r1][k+1] w[r2][k] ... w[r3][k+1]
 * so the inner loop reads one int32 word per row and tap pair. A row has
 * KILN_S8_ROW_LEN(taps) values (zero padded).
 *
 * Column layouts in scratch: a single column is row_len contiguous int16; a pair
 * of columns (two output pixels) is interleaved by tap pairs:
 *   a[k] a[k+1] b[k] b[k+1] a[k+2] a[k+3] b[k+2] b[k+3] ...
 */
#ifndef KILN_REQUANT_S8_H
#define KILN_REQUANT_S8_H

#include <string.h>

#include "kiln/nn_s8.h"

#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
#include <arm_acle.h>
#define KILN_S8_DSP 1
#else
#define KILN_S8_DSP 0
#endif

/* requant(acc) of kiln_s8_requant_t, saturated to +-2^30 so that adding an output
 * offset cannot overflow and clamps exactly as TFLite's saturating arithmetic. */
static inline int32_t kiln_s8_requant(int32_t acc, const kiln_s8_requant_t* rq) {
  const int64_t p = (int64_t)acc * rq->multiplier + (acc < 0 ? rq->round_neg : rq->round_pos);
  int64_t v;
  if (rq->shift >= 32) return (int32_t)(p >> 32) >> (rq->shift - 32);
  v = p >> rq->shift;
  if (v > (int64_t)1 << 30) return (int32_t)1 << 30;
  if (v < -((int64_t)1 << 30)) return -((int32_t)1 << 30);
  return (int32_t)v;
}

static inline int8_t kiln_s8_clamp(int32_t v, int32_t lo, int32_t hi) {
  return (int8_t)(v < lo ? lo : v > hi ? hi : v);
}

/* The output parameters every GEMM-style kernel shares. */
typedef struct {
  int32_t output_offset, act_min, act_max;
} kiln_s8_output_t;

static inline int8_t kiln_s8_output(int32_t acc, const kiln_s8_requant_t* rq, const kiln_s8_output_t* o) {
  return kiln_s8_clamp(o->output_offset + kiln_s8_requant(acc, rq), o->act_min, o->act_max);
}

static inline uint32_t kiln_s8_load32(const void* p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}

static inline uint32_t kiln_s8_ror8(uint32_t v) { return (v >> 8) | (v << 24); }

static inline void kiln_s8_store32(void* p, uint32_t v) { memcpy(p, &v, 4); }

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
    const uint32_t even = __sxtab16(off2, v);                      /* x0 x2 */
    const uint32_t odd = __sxtab16(off2, kiln_s8_ror8(v));             /* x1 x3 */
    const uint32_t lo = (even & 0xFFFFu) | (odd << 16);            /* x0 x1 */
    const uint32_t hi = (even >> 16) | (odd & 0xFFFF0000u);        /* x2 x3 */
    kiln_s8_store32(dst, lo);
    kiln_s8_store32(dst + pair_stride, hi);
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
static inline void kiln_s8_dot_2x4(const int16_t* cols, const int16_t* wblock, int32_t row_len,
                                   int32_t acc[2][4]) {
  int32_t a00 = acc[0][0], a01 = acc[0][1], a02 = acc[0][2], a03 = acc[0][3];
  int32_t a10 = acc[1][0], a11 = acc[1][1], a12 = acc[1][2], a13 = acc[1][3];
  const int16_t* end = cols + 2 * row_len;
#if KILN_S8_DSP
  const int16_t* c = cols;
  const int16_t* w = wblock;
  while (c < end) {
    const uint32_t x0 = kiln_s8_load32(c), x1 = kiln_s8_load32(c + 2);
    uint32_t wv = kiln_s8_load32(w);
    a00 = __smlad(x0, wv, a00);
    a10 = __smlad(x1, wv, a10);
    wv = kiln_s8_load32(w + 2);
    a01 = __smlad(x0, wv, a01);
    a11 = __smlad(x1, wv, a11);
    wv = kiln_s8_load32(w + 4);
    a02 = __smlad(x0, wv, a02);
    a12 = __smlad(x1, wv, a12);
    wv = kiln_s8_load32(w + 6);
    a03 = __smlad(x0, wv, a03);
    a13 = __smlad(x1, wv, a13);
    c += 4;
    w += 8;
  }
#else
  const int16_t* c = cols;
  const int16_t* w = wblock;
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
static inline void kiln_s8_dot_1x4(const int16_t* col, const int16_t* wblock, int32_t row_len, int32_t acc[4]) {
  int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
  const int16_t* end = col + row_len;
#if KILN_S8_DSP
  const int16_t* c = col;
  const int16_t* w = wblock;
  while (c < end) {
    const uint32_t x0 = kiln_s8_load32(c), x1 = kiln_s8_load32(c + 2);
    a0 = __smlad(x0, kiln_s8_load32(w), a0);
    a1 = __smlad(x0, kiln_s8_load32(w + 2), a1);
    a2 = __smlad(x0, kiln_s8_load32(w + 4), a2);
    a3 = __smlad(x0, kiln_s8_load32(w + 6), a3);
    a0 = __smlad(x1, kiln_s8_load32(w + 8), a0);
    a1 = __smlad(x1, kiln_s8_load32(w + 10), a1);
    a2 = __smlad(x1, kiln_s8_load32(w + 12), a2);
    a3 = __smlad(x1, kiln_s8_load32(w + 14), a3);
    c += 4;
    w += 16;
  }
#else
  const int16_t* c = col;
  const int16_t* w = wblock;
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
    if (y1 != NULL) {
      kiln_s8_dot_2x4(cols, wblock, row_len, acc);
      for (r = 0; r < n; ++r) {
        y0[oc + r] = kiln_s8_output(acc[0][r], &rq[oc + r], o);
        y1[oc + r] = kiln_s8_output(acc[1][r], &rq[oc + r], o);
      }
    } else {
      kiln_s8_dot_1x4(cols, wblock, row_len, acc[0]);
      for (r = 0; r < n; ++r) y0[oc + r] = kiln_s8_output(acc[0][r], &rq[oc + r], o);
    }
  }
}

#endif /* KILN_REQUANT_S8_H */
