/*
 * Shared by the int8 binary kernels (add_s8.c, mul_s8.c): the folded TFLite
 * rescale (kiln_s8_rescale_t) and the numpy broadcast walk. The walk calls a row
 * function on each innermost output row with the inputs' element strides in that
 * row (0 when broadcast, usually 1); the outer dimensions advance an odometer, so
 * there is no division or modulo per element.
 */
#ifndef KILN_S8_BINARY_H
#define KILN_S8_BINARY_H

#include "kiln/nn_s8_elementwise.h"

#if defined(__ARM_FEATURE_SAT) && __ARM_FEATURE_SAT
#include <arm_acle.h>
#endif

/* kiln_s8_rescale_t as the loops use it. Every folded rounding has the low word
 * 2^31 (see generator/quant/folded_rescale.cpp); round_neg is round_pos or
 * round_pos - 2^32, i.e. the same with the high word one less. So the 64-bit
 * addend is (round_hi - (v < 0 ? neg_adjust : 0)) : 2^31, which one SMLAL takes as
 * its accumulator. */
typedef struct {
  int32_t multiplier, pre_shift, round_hi, neg_adjust, post_shift;
} kiln_s8_rescale_regs_t;

static inline kiln_s8_rescale_regs_t kiln_s8_rescale_regs(const kiln_s8_rescale_t* r) {
  kiln_s8_rescale_regs_t g;
  g.multiplier = r->multiplier;
  g.pre_shift = r->pre_shift;
  g.round_hi = (int32_t)(r->round_pos >> 32);
  g.neg_adjust = (int32_t)((r->round_pos - r->round_neg) >> 32);
  g.post_shift = r->post_shift;
  return g;
}

static inline int32_t kiln_s8_rescale(int32_t v, int32_t multiplier, int32_t pre_shift, int32_t round_hi,
                                      int32_t neg_adjust, int32_t post_shift) {
  const int32_t hi = round_hi - (int32_t)((uint32_t)v >> 31 & (uint32_t)neg_adjust);
  const int64_t t = (int64_t)(v * (1 << pre_shift)) * multiplier + ((int64_t)hi * 4294967296LL + 0x80000000LL);
  return (int32_t)(t >> 32) >> post_shift;
}

/* v saturated to [-128, 127]: one SSAT where the target has it. */
static inline int8_t kiln_s8_sat8(int32_t v) {
#if defined(__ARM_FEATURE_SAT) && __ARM_FEATURE_SAT
  return (int8_t)__ssat(v, 8);
#else
  v = v < -128 ? -128 : v;
  return (int8_t)(v > 127 ? 127 : v);
#endif
}

static inline int8_t kiln_s8_clamp(int32_t v, int32_t lo, int32_t hi) {
  v = v < lo ? lo : v;
  v = v > hi ? hi : v;
  return (int8_t)v;
}

static inline int kiln_s8_rescale_ok(const kiln_s8_rescale_t* r) {
  const int64_t d = r->round_pos - r->round_neg;
  return r->multiplier >= 0 && r->pre_shift >= 0 && r->pre_shift <= 30 && r->post_shift >= 0 &&
         r->post_shift <= 31 && (r->round_pos & 0xFFFFFFFFLL) == 0x80000000LL &&
         (d == 0 || d == 4294967296LL) && r->round_pos >> 32 < 0x7FFFFFFFLL;
}

typedef void (*kiln_s8_row_fn)(const void* params, const int8_t* a, int32_t sa, const int8_t* b, int32_t sb,
                               int8_t* y, int32_t n);

static inline kiln_status_t kiln_s8_broadcast_walk(const kiln_broadcast_t* bc, const void* params, const int8_t* a,
                                                   const int8_t* b, int8_t* y, kiln_s8_row_fn row) {
  int32_t idx[KILN_MAX_DIMS] = {0};
  uint32_t last, d, outer = 1;
  int32_t n, oa = 0, ob = 0;
  if (bc->ndim < 1u || bc->ndim > KILN_MAX_DIMS) return KILN_ERR_BAD_ARGUMENT;
  last = bc->ndim - 1u;
  n = bc->shape[last];
  for (d = 0; d < last; ++d) outer *= (uint32_t)bc->shape[d];
  if (n <= 0 || outer == 0u) return KILN_OK;
  for (; outer > 0u; --outer) {
    row(params, a + oa, bc->stride_a[last], b + ob, bc->stride_b[last], y, n);
    y += n;
    for (d = last; d-- > 0u;) { /* odometer over the outer dimensions */
      oa += bc->stride_a[d];
      ob += bc->stride_b[d];
      if (++idx[d] < bc->shape[d]) break;
      oa -= bc->stride_a[d] * bc->shape[d];
      ob -= bc->stride_b[d] * bc->shape[d];
      idx[d] = 0;
    }
  }
  return KILN_OK;
}

#endif /* KILN_S8_BINARY_H */
