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

/* The rescale of kiln_s8_rescale_t, fields already in registers. */
static inline int32_t kiln_s8_rescale(int32_t v, int32_t multiplier, int32_t pre_shift, int64_t round_pos,
                                      int64_t round_neg, int32_t post_shift) {
  const int64_t t = (int64_t)(v * (1 << pre_shift)) * multiplier + (v < 0 ? round_neg : round_pos);
  return (int32_t)(t >> 32) >> post_shift;
}

static inline int8_t kiln_s8_clamp(int32_t v, int32_t lo, int32_t hi) {
  v = v < lo ? lo : v;
  v = v > hi ? hi : v;
  return (int8_t)v;
}

static inline int kiln_s8_rescale_ok(const kiln_s8_rescale_t* r) {
  return r->multiplier >= 0 && r->pre_shift >= 0 && r->pre_shift <= 30 && r->post_shift >= 0 &&
         r->post_shift <= 31;
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
