/*
 * The MVE (Helium, Cortex-M55) path of the MAC-heavy int8 kernels: conv_s8_mve.h,
 * depthwise_conv_s8_mve.h, fully_connected_s8_mve.h (GEMM core in s8_mve_gemm.h).
 * KILN_S8_MVE is 1 when the target has integer MVE and the portable path is not
 * forced (KILN_S8_PORTABLE, or KILN_S8_FORCE_PORTABLE); then kiln_conv2d_s8,
 * kiln_depthwise_conv2d_s8 and kiln_fully_connected_s8 hand their work to those
 * files' functions, which give bit-identical outputs (the same exact int32 sums,
 * the same requantization). They are headers of static functions included by the
 * kernel files, not .c files of their own, so the runtime's kernel index (built
 * from the host objects) needs no knowledge of them, and a kernel file keeps one
 * #include and one #if of MVE.
 *
 * They read the weights in the compiler's one layout (requant_s8.h), no
 * board-specific form. This file: the configuration, int8 -> int16 widening of
 * im2col columns, and the requantization of four channels in one vector.
 */
#ifndef KILN_S8_MVE_H
#define KILN_S8_MVE_H

#include <stddef.h>

#include "requant_s8.h"

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1) && !defined(KILN_S8_PORTABLE) && \
    !defined(KILN_S8_FORCE_PORTABLE)
#define KILN_S8_MVE 1
#include <arm_mve.h>
#else
#define KILN_S8_MVE 0
#endif

#if KILN_S8_MVE
/* Whether a predicate is known at compile time to enable every lane: the
 * predicated forms cost a VPST each, so the helpers below use the plain ones. */
#define KILN_S8_MVE_ALL(live) (__builtin_constant_p(live) && (live) == 0xFFFF)

/* dst[i] = src[i] + offset for i < n (int8 widened to int16, tail-predicated). */
static inline void kiln_s8_mve_widen(int16_t* dst, const int8_t* src, int32_t n, int32_t offset) {
  for (; n > 0; n -= 8, src += 8, dst += 8) {
    const mve_pred16_t live = vctp16q((uint32_t)n);
    const int16x8_t v = vldrbq_z_s16(src, live);
    vstrhq_p_s16(dst, vaddq_x_n_s16(v, (int16_t)offset, live), live);
  }
}

/* dst[i] = 0 for i < n. */
static inline void kiln_s8_mve_zero(int16_t* dst, int32_t n) {
  const int16x8_t z = vdupq_n_s16(0);
  for (; n > 0; n -= 8, dst += 8) vstrhq_p_s16(dst, z, vctp16q((uint32_t)n));
}

/* Four int32 values as one vector (two VMOV of a register pair into two lanes). */
static inline int32x4_t kiln_s8_mve_vector(int32_t a0, int32_t a1, int32_t a2, int32_t a3) {
  int32x4_t v = vdupq_n_s32(a0);
  v = vsetq_lane_s32(a1, v, 1);
  v = vsetq_lane_s32(a2, v, 2);
  return vsetq_lane_s32(a3, v, 3);
}

/* What the vector requantization needs of a call's parameters, set once. The four lanes of a vector are channels c, c + stride, c + 2 * stride,
 * c + 3 * stride (stride 1 for the GEMM, 2 for depthwise's even / odd lanes). */
typedef struct {
  int32x4_t output_offset, act_min, act_max;
  uint32x4_t rq_offsets; /* byte offsets of the lanes' kiln_s8_requant_t */
  uint32x4_t y_offsets;  /* byte offsets of the lanes' outputs */
  int right_only;        /* every channel has a right shift (S < 0): no VQSHL, no mask */
} kiln_s8_mve_output_t;

/* Whether channels [0, n) all have a right shift (general form shift > 31). */
static inline int kiln_s8_mve_right_only(const kiln_s8_requant_t* rq, int32_t n) {
  int32_t c;
  for (c = 0; c < n; ++c)
    if (rq[c].shift <= 31) return 0;
  return 1;
}

static inline void kiln_s8_mve_output_init(kiln_s8_mve_output_t* m, int32_t output_offset, int32_t act_min,
                                           int32_t act_max, int32_t stride) {
  m->output_offset = vdupq_n_s32(output_offset);
  m->act_min = vdupq_n_s32(act_min);
  m->act_max = vdupq_n_s32(act_max);
  m->y_offsets = vmulq_n_u32(vidupq_n_u32(0, 1), (uint32_t)stride);
  m->rq_offsets = vmulq_n_u32(m->y_offsets, (uint32_t)sizeof(kiln_s8_requant_t));
  m->right_only = 0;
}

/* The requantization constants of four channels (lanes as kiln_s8_mve_output_t
 * says), loaded once per block of channels: the multiplier M, TFLite's shift S
 * split into a left shift max(S, 0) and a right shift max(-S, 0) (negated, for
 * VRSHL), and an all-ones mask where there is a right shift. */
typedef struct {
  int32x4_t multiplier, left, minus_right, right_mask;
} kiln_s8_mve_rq4_t;

/* kiln_s8_mve_requant_mem reads these structs at fixed offsets ([%[q], #N], [%[m], #N]). */
KILN_ASM_OFFSET(kiln_s8_mve_rq4_t, multiplier, 0);
KILN_ASM_OFFSET(kiln_s8_mve_rq4_t, left, 16);
KILN_ASM_OFFSET(kiln_s8_mve_rq4_t, minus_right, 32);
KILN_ASM_OFFSET(kiln_s8_mve_rq4_t, right_mask, 48);
KILN_ASM_OFFSET(kiln_s8_mve_output_t, output_offset, 0);
KILN_ASM_OFFSET(kiln_s8_mve_output_t, act_min, 16);
KILN_ASM_OFFSET(kiln_s8_mve_output_t, act_max, 32);

KILN_S8_INLINE kiln_s8_mve_rq4_t kiln_s8_mve_rq4_as(const kiln_s8_requant_t* rq, const kiln_s8_mve_output_t* m,
                                                    mve_pred16_t live, int right_only) {
  kiln_s8_mve_rq4_t q;
  /* S = 31 - shift for both signs of S (nn_s8.h). */
  const int32x4_t shift = KILN_S8_MVE_ALL(live) ? vldrwq_gather_offset_s32(&rq->shift, m->rq_offsets)
                                                : vldrwq_gather_offset_z_s32(&rq->shift, m->rq_offsets, live);
  const int32x4_t s = vsubq_s32(vdupq_n_s32(31), shift);
  q.multiplier = KILN_S8_MVE_ALL(live) ? vldrwq_gather_offset_s32(&rq->multiplier, m->rq_offsets)
                                       : vldrwq_gather_offset_z_s32(&rq->multiplier, m->rq_offsets, live);
  if (right_only) { /* S < 0 in every lane (left and mask unused) */
    q.minus_right = s;
    q.left = q.right_mask = vdupq_n_s32(0);
    return q;
  }
  q.left = vmaxq_s32(s, vdupq_n_s32(0));
  q.minus_right = vminq_s32(s, vdupq_n_s32(0));
  q.right_mask = vshrq_n_s32(q.minus_right, 31);
  return q;
}

KILN_S8_INLINE kiln_s8_mve_rq4_t kiln_s8_mve_rq4(const kiln_s8_requant_t* rq, const kiln_s8_mve_output_t* m,
                                                 mve_pred16_t live) {
  return kiln_s8_mve_rq4_as(rq, m, live, 0);
}

/*
 * TFLite's MultiplyByQuantizedMultiplier on four lanes, then the output offset and
 * the clamp; equal to kiln_s8_requant (requant_s8.h) for every acc:
 * - VQSHL by max(S, 0) is TFLite's acc * 2^S; where that overflows int32, the
 *   saturated value still gives a result beyond +-2^30 (M >= 2^30), which clamps
 *   to the same act bound as the exact product.
 * - VQRDMULH(a, M) = (2 * a * M + 2^31) >> 32 in wide precision is
 *   SaturatingRoundingDoublingHighMul (it saturates only for INT32_MIN *
 *   INT32_MIN; M < 2^31) for any a, so no |acc| bound is needed here.
 * - RoundingDivideByPOT(x, e), ties away from zero: subtract 1 from a negative x
 *   (x > INT32_MIN: |M| < 2^31), then VRSHL by -e, (x + 2^(e-1)) >> e without
 *   overflow; no subtraction where e = 0.
 * - VQADD of the output offset: a saturated sum clamps like the exact one.
 */
KILN_S8_INLINE int32x4_t kiln_s8_mve_requant_as(int32x4_t acc, const kiln_s8_mve_rq4_t* q,
                                                const kiln_s8_mve_output_t* m, int right_only) {
  int32x4_t v;
  if (right_only) { /* no left shift; every lane's sign correction applies */
    v = vqrdmulhq_s32(acc, q->multiplier);
    v = vaddq_s32(v, vshrq_n_s32(v, 31));
  } else {
    v = vqrdmulhq_s32(vqshlq_s32(acc, q->left), q->multiplier);
    v = vaddq_s32(v, vandq_s32(vshrq_n_s32(v, 31), q->right_mask));
  }
  v = vqaddq_s32(vrshlq_s32(v, q->minus_right), m->output_offset);
  return vminq_s32(vmaxq_s32(v, m->act_min), m->act_max);
}

KILN_S8_INLINE int32x4_t kiln_s8_mve_requant(int32x4_t acc, const kiln_s8_mve_rq4_t* q,
                                             const kiln_s8_mve_output_t* m) {
  return kiln_s8_mve_requant_as(acc, q, m, 0);
}

/* kiln_s8_mve_requant with *q and *m read from memory, each constant loaded right
 * before its use: where the constants cannot stay in registers (depthwise), GCC
 * otherwise keeps the fields' addresses in spilled registers and copies vectors
 * through the stack, about 12 more instructions per vector. */
KILN_S8_INLINE int32x4_t kiln_s8_mve_requant_mem(int32x4_t acc, const kiln_s8_mve_rq4_t* q,
                                                 const kiln_s8_mve_output_t* m, int right_only) {
  int32x4_t t0, t1;
  if (right_only) {
    __asm__("vldrw.32 %q[t0], [%[q]]\n\t"        /* multiplier */
            "vqrdmulh.s32 %q[v], %q[v], %q[t0]\n\t"
            "vshr.s32 %q[t1], %q[v], #31\n\t"
            "vadd.i32 %q[v], %q[v], %q[t1]\n\t"
            "vldrw.32 %q[t0], [%[q], #32]\n\t"   /* minus_right */
            "vrshl.s32 %q[v], %q[v], %q[t0]\n\t"
            "vldrw.32 %q[t0], [%[m]]\n\t"        /* output_offset */
            "vqadd.s32 %q[v], %q[v], %q[t0]\n\t"
            "vldrw.32 %q[t0], [%[m], #16]\n\t"   /* act_min */
            "vmax.s32 %q[v], %q[v], %q[t0]\n\t"
            "vldrw.32 %q[t0], [%[m], #32]\n\t"   /* act_max */
            "vmin.s32 %q[v], %q[v], %q[t0]"
            : [v] "+w"(acc), [t0] "=&w"(t0), [t1] "=&w"(t1)
            : [q] "r"(q), [m] "r"(m), "m"(*q), "m"(*m));
    return acc;
  }
  __asm__("vldrw.32 %q[t0], [%[q], #16]\n\t"   /* left */
          "vqshl.s32 %q[v], %q[v], %q[t0]\n\t"
          "vldrw.32 %q[t0], [%[q]]\n\t"        /* multiplier */
          "vqrdmulh.s32 %q[v], %q[v], %q[t0]\n\t"
          "vldrw.32 %q[t0], [%[q], #48]\n\t"   /* right_mask */
          "vshr.s32 %q[t1], %q[v], #31\n\t"
          "vand %q[t1], %q[t1], %q[t0]\n\t"
          "vadd.i32 %q[v], %q[v], %q[t1]\n\t"
          "vldrw.32 %q[t0], [%[q], #32]\n\t"   /* minus_right */
          "vrshl.s32 %q[v], %q[v], %q[t0]\n\t"
          "vldrw.32 %q[t0], [%[m]]\n\t"        /* output_offset */
          "vqadd.s32 %q[v], %q[v], %q[t0]\n\t"
          "vldrw.32 %q[t0], [%[m], #16]\n\t"   /* act_min */
          "vmax.s32 %q[v], %q[v], %q[t0]\n\t"
          "vldrw.32 %q[t0], [%[m], #32]\n\t"   /* act_max */
          "vmin.s32 %q[v], %q[v], %q[t0]"
          : [v] "+w"(acc), [t0] "=&w"(t0), [t1] "=&w"(t1)
          : [q] "r"(q), [m] "r"(m), "m"(*q), "m"(*m));
  return acc;
}

/* Requantizes the sums of the live channels (lanes as m says; `right_only` a
 * constant, see kiln_s8_mve_requant_as) and stores them as bytes: lane i at
 * y + i (channels one after another). */
KILN_S8_INLINE void kiln_s8_mve_store_as(int32x4_t acc, const kiln_s8_mve_rq4_t* q, const kiln_s8_mve_output_t* m,
                                         mve_pred16_t live, int8_t* y, int right_only) {
  if (KILN_S8_MVE_ALL(live))
    vstrbq_s32(y, kiln_s8_mve_requant_as(acc, q, m, right_only));
  else
    vstrbq_p_s32(y, kiln_s8_mve_requant_as(acc, q, m, right_only), live);
}

KILN_S8_INLINE void kiln_s8_mve_store(int32x4_t acc, const kiln_s8_mve_rq4_t* q, const kiln_s8_mve_output_t* m,
                                      mve_pred16_t live, int8_t* y) {
  kiln_s8_mve_store_as(acc, q, m, live, y, 0);
}

/* As kiln_s8_mve_store, lane i at y + i * stride (a scatter, stride as m was set up). */
KILN_S8_INLINE void kiln_s8_mve_scatter(int32x4_t acc, const kiln_s8_mve_rq4_t* q, const kiln_s8_mve_output_t* m,
                                        mve_pred16_t live, int8_t* y, int right_only) {
  if (KILN_S8_MVE_ALL(live))
    vstrbq_scatter_offset_s32(y, m->y_offsets, kiln_s8_mve_requant_mem(acc, q, m, right_only));
  else
    vstrbq_scatter_offset_p_s32(y, m->y_offsets, kiln_s8_mve_requant_mem(acc, q, m, right_only), live);
}

#endif /* KILN_S8_MVE */

#endif /* KILN_S8_MVE_H */
