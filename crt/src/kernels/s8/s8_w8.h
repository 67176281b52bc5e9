/*
 * What the int8-weight kernels (conv_s8_w8.c, fully_connected_s8_w8.c; layout in
 * nn_s8.h) share on the portable path: a row's dot product with a column of raw
 * int8 values and the addition of the compiler's kernel bias; on the DSP extension
 * the four rows of a block at once (SXTB16 + SMLAD, the compact form of a target
 * without MVE: docs/performance.md, "Flash as a budget").
 */
#ifndef KILN_S8_W8_H
#define KILN_S8_W8_H

#include "requant_s8.h"

/* Row r of the block at wblock (16-tap chunks of four rows) . col over `taps`:
 * chunk by chunk, so that a tap's weight is at a fixed offset from the chunk's. */
static inline int32_t kiln_s8_w8_dot(const int8_t* wblock, int32_t r, const int8_t* col, int32_t taps) {
  int32_t k, j, sum = 0;
  const int8_t* wc = wblock + r * 16;
  for (k = 0; k + 16 <= taps; k += 16, wc += 64, col += 16)
    for (j = 0; j < 16; ++j) sum += col[j] * wc[j];
  for (j = 0; k + j < taps; ++j) sum += col[j] * wc[j];
  return sum;
}

#if KILN_S8_DSP
/* Bytes 1 and 3 of v sign-extended into the halves of a word (SXTB16 with ROR #8:
 * GCC does not fold the rotation into the instruction by itself). */
static inline int16x2_t kiln_s8_sxtb16_ror8(uint32_t v) {
  int16x2_t r;
  __asm__("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(v));
  return r;
}

/* Four taps (one word of the column, split into even and odd lanes xe / xo) of
 * the four rows of a block: each row's word at its 16-byte stride. */
#define KILN_S8_W8_WORD(wk, xe, xo, s0, s1, s2, s3)                              \
  do {                                                                           \
    uint32_t w_;                                                                 \
    w_ = kiln_s8_load4(wk);                                                      \
    s0 = __smlad(__sxtb16((int8x4_t)w_), xe, s0);                                \
    s0 = __smlad(kiln_s8_sxtb16_ror8(w_), xo, s0);                               \
    w_ = kiln_s8_load4((wk) + 16);                                               \
    s1 = __smlad(__sxtb16((int8x4_t)w_), xe, s1);                                \
    s1 = __smlad(kiln_s8_sxtb16_ror8(w_), xo, s1);                               \
    w_ = kiln_s8_load4((wk) + 32);                                               \
    s2 = __smlad(__sxtb16((int8x4_t)w_), xe, s2);                                \
    s2 = __smlad(kiln_s8_sxtb16_ror8(w_), xo, s2);                               \
    w_ = kiln_s8_load4((wk) + 48);                                               \
    s3 = __smlad(__sxtb16((int8x4_t)w_), xe, s3);                                \
    s3 = __smlad(kiln_s8_sxtb16_ror8(w_), xo, s3);                               \
  } while (0)

/* The four rows of the block at wblock . col over `taps`, into sum[0..3], on the DSP
 * extension: a word of four int8 taps is split into its even and odd lanes
 * sign-extended to int16 (SXTB16, and SXTB16 of the word rotated by 8), and
 * SMLAD multiplies and adds both lanes; the column's word is loaded and split once
 * for the four rows. Whole 16-tap chunks (64 bytes of the block) four words at a
 * time at fixed offsets, then the last chunk's whole words, then its bytes (a
 * fully connected layer's input row is not padded). The compiler bounds the
 * accumulator (it fits in int32), so SMLAD's additions never overflow. */
static inline void kiln_s8_w8_dot4(const int8_t* wblock, const int8_t* col, int32_t taps, int32_t sum[4]) {
  int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0, k, j;
  const int8_t* wc = wblock;
  for (k = 0; k + 16 <= taps; k += 16, wc += 64, col += 16) {
    for (j = 0; j < 16; j += 4) {
      const uint32_t x = kiln_s8_load4(col + j);
      const int16x2_t xe = __sxtb16((int8x4_t)x), xo = kiln_s8_sxtb16_ror8(x);
      KILN_S8_W8_WORD(wc + j, xe, xo, s0, s1, s2, s3);
    }
  }
  for (j = 0; k + j + 4 <= taps; j += 4) {
    const uint32_t x = kiln_s8_load4(col + j);
    const int16x2_t xe = __sxtb16((int8x4_t)x), xo = kiln_s8_sxtb16_ror8(x);
    KILN_S8_W8_WORD(wc + j, xe, xo, s0, s1, s2, s3);
  }
  for (; k + j < taps; ++j) {
    const int32_t xv = col[j];
    s0 += xv * wc[j], s1 += xv * wc[j + 16], s2 += xv * wc[j + 32], s3 += xv * wc[j + 48];
  }
  sum[0] = s0, sum[1] = s1, sum[2] = s2, sum[3] = s3;
}

/* The outputs of rows c .. c + n - 1 (n <= 4) from their sums: kernel bias added,
 * requantized with `form` (KILN_S8_FORM, a constant where this is inlined). */
KILN_S8_INLINE void kiln_s8_w8_store(int8_t* y, const int32_t sum[4], const int32_t* kernel_bias,
                                     const kiln_s8_requant_t* rq, const kiln_s8_output_t* o, int32_t n, int form);
#endif

/* kernel_bias + sum with int32 wrap-around: the exact accumulator whenever it
 * fits in int32 (the compiler bounds it), without signed overflow in C. */
static inline int32_t kiln_s8_w8_acc(int32_t kernel_bias, int32_t sum) {
  const uint32_t u = (uint32_t)kernel_bias + (uint32_t)sum;
  return u <= 0x7FFFFFFFu ? (int32_t)u : -(int32_t)(~u) - 1;
}

/* Where the int8-weight kernels take each channel's requantization from: the
 * kiln_s8_requant_t array `rq`, or (the compact form, nn_s8.h) the records `qm` of
 * two int32 {multiplier, shift} per channel, expanded on the way. */
typedef struct {
  const kiln_s8_requant_t* rq;
  const int32_t* qm;
  int32_t output_offset;
} kiln_s8_w8_requant_src_t;

/* The kiln_s8_requant_t of TFLite's (multiplier, shift) with this output offset:
 * the same fields the compiler's table holds (nn_s8.h, kiln_s8_requant_t). */
static inline void kiln_s8_requant_expand(int32_t multiplier, int32_t shift, int32_t output_offset,
                                          kiln_s8_requant_t* rq) {
  rq->multiplier = multiplier;
  if (shift >= 0) {
    rq->shift = 31 - shift;
    rq->round_pos = rq->round_neg = (int64_t)1 << (30 - shift);
    rq->exponent = 0;
    rq->round_offset = 0;
  } else {
    const int32_t e = -shift;
    rq->shift = 31 + e;
    rq->round_pos = ((int64_t)1 << 30) + ((int64_t)1 << (30 + e));
    rq->round_neg = rq->round_pos - ((int64_t)1 << 31);
    rq->exponent = e;
    rq->round_offset = e <= 22 ? (int32_t)(((int64_t)1 << (e - 1)) + (int64_t)output_offset * ((int64_t)1 << e)) : 0;
  }
}

/* The requantization of channels oc .. oc + n - 1 (n <= 4): in place, or expanded
 * into tmp. `short_form`: the caller requantizes with the short form, which reads
 * only multiplier, round_offset and exponent (32-bit arithmetic, a few
 * instructions a channel; the general form's 64-bit roundings cost more). */
static inline const kiln_s8_requant_t* kiln_s8_w8_rq(const kiln_s8_w8_requant_src_t* src, int32_t oc, int32_t n,
                                                     kiln_s8_requant_t tmp[4], int short_form) {
  int32_t r;
  const int32_t* qm = src->qm + 2 * oc;
  if (src->rq != NULL) return src->rq + oc;
  if (short_form) {
    /* exponent e = -shift in [1, 22] (kiln_s8_short_form_ok checked every channel). */
    for (r = 0; r < n; ++r) {
      const int32_t e = -qm[2 * r + 1];
      tmp[r].multiplier = qm[2 * r];
      tmp[r].exponent = e;
      tmp[r].round_offset = (int32_t)((1u << (e - 1)) + ((uint32_t)src->output_offset << e));
    }
    return tmp;
  }
  for (r = 0; r < n; ++r) kiln_s8_requant_expand(qm[2 * r], qm[2 * r + 1], src->output_offset, &tmp[r]);
  return tmp;
}

/* kiln_s8_output_init for either source (the short form's check channel by channel). */
static inline void kiln_s8_w8_output_init(kiln_s8_output_t* o, const kiln_s8_w8_requant_src_t* src, int32_t act_min,
                                          int32_t act_max, const int32_t* kernel_bias, int32_t channels,
                                          int64_t taps) {
  int32_t c;
  kiln_s8_requant_t tmp[4];
  if (src->rq != NULL) {
    kiln_s8_output_init(o, src->output_offset, act_min, act_max, src->rq, kernel_bias, channels, taps);
    return;
  }
  kiln_s8_output_init(o, src->output_offset, act_min, act_max, kiln_s8_w8_rq(src, 0, 1, tmp, 0), kernel_bias, 1,
                      taps);
  for (c = 1; c < channels && o->short_form; ++c)
    o->short_form =
        kiln_s8_short_form_ok(kiln_s8_w8_rq(src, c, 1, tmp, 0), kernel_bias + c, 1, taps, src->output_offset);
}

#if KILN_S8_DSP
KILN_S8_INLINE void kiln_s8_w8_store(int8_t* y, const int32_t sum[4], const int32_t* kernel_bias,
                                     const kiln_s8_requant_t* rq, const kiln_s8_output_t* o, int32_t n, int form) {
  int32_t r;
  for (r = 0; r < n; ++r) y[r] = kiln_s8_output_as(kiln_s8_w8_acc(kernel_bias[r], sum[r]), &rq[r], o, form);
}

/* kiln_s8_w8_store with its form a constant: one specialised copy per form. */
static inline void kiln_s8_w8_store_any(int8_t* y, const int32_t sum[4], const int32_t* kernel_bias,
                                        const kiln_s8_requant_t* rq, const kiln_s8_output_t* o, int32_t n,
                                        int form) {
  switch (form) {
    case 3: kiln_s8_w8_store(y, sum, kernel_bias, rq, o, n, 3); break;
    case 2: kiln_s8_w8_store(y, sum, kernel_bias, rq, o, n, 2); break;
    case 1: kiln_s8_w8_store(y, sum, kernel_bias, rq, o, n, 1); break;
    default: kiln_s8_w8_store(y, sum, kernel_bias, rq, o, n, 0); break;
  }
}
#endif

#endif /* KILN_S8_W8_H */
