/*
 * The loop shared by the kernels with N broadcast inputs (Min, Max, Sum, Mean,
 * Where), driven by a kiln_broadcast_n_t. Like broadcast_walk.h, the innermost
 * output dimension is a straight loop and the outer ones advance an odometer;
 * one offset per input is carried along.
 *
 * KILN_NARY_WALK(p, BODY) runs BODY once per output element, in order; inside it
 * `kiln_j` is the output index and KILN_NARY_AT(k) the element index into input k.
 * BODY reads every input of element j before it writes out[j], so in-place use
 * (out == an input of the output's shape) is safe.
 */
#ifndef KILN_NARY_WALK_H
#define KILN_NARY_WALK_H

#include "kiln/elementwise.h"

/* Argument checks shared by the N-ary kernels; `in` is the array of input pointers. */
static inline kiln_status_t kiln_nary_check(const kiln_broadcast_n_t* p, const void* const* in, const void* out) {
  uint32_t k;
  if (p == NULL || in == NULL || out == NULL || p->strides == NULL) return KILN_ERR_NULL_POINTER;
  if (p->ndim < 1u || p->ndim > KILN_MAX_DIMS) return KILN_ERR_BAD_ARGUMENT;
  if (p->num_inputs < 1u || p->num_inputs > KILN_MAX_NARY_INPUTS) return KILN_ERR_BAD_ARGUMENT;
  for (k = 0; k < p->num_inputs; ++k)
    if (in[k] == NULL) return KILN_ERR_NULL_POINTER;
  return KILN_OK;
}

#define KILN_NARY_AT(k) (kiln_off[(k)] + kiln_i * kiln_step[(k)])

#define KILN_NARY_WALK(p, BODY)                                                            \
  do {                                                                                     \
    int32_t kiln_idx[KILN_MAX_DIMS] = {0};                                                 \
    int32_t kiln_off[KILN_MAX_NARY_INPUTS] = {0};                                          \
    int32_t kiln_step[KILN_MAX_NARY_INPUTS];                                               \
    const uint32_t kiln_nd = (p)->ndim, kiln_last = (p)->ndim - 1u;                        \
    const uint32_t kiln_nin = (p)->num_inputs;                                             \
    const int32_t kiln_n = (p)->shape[kiln_last];                                          \
    uint32_t kiln_k, kiln_d, kiln_outer = 1u;                                              \
    int32_t kiln_i;                                                                        \
    uint32_t kiln_j = 0u;                                                                  \
    for (kiln_k = 0; kiln_k < kiln_nin; ++kiln_k)                                          \
      kiln_step[kiln_k] = (p)->strides[kiln_k * kiln_nd + kiln_last];                      \
    for (kiln_d = 0; kiln_d < kiln_last; ++kiln_d) kiln_outer *= (uint32_t)(p)->shape[kiln_d]; \
    if (kiln_n <= 0) kiln_outer = 0u;                                                      \
    for (; kiln_outer > 0u; --kiln_outer) {                                                \
      for (kiln_i = 0; kiln_i < kiln_n; ++kiln_i, ++kiln_j) {                              \
        BODY                                                                               \
      }                                                                                    \
      for (kiln_d = kiln_last; kiln_d-- > 0u;) { /* odometer over the outer dims */        \
        for (kiln_k = 0; kiln_k < kiln_nin; ++kiln_k)                                      \
          kiln_off[kiln_k] += (p)->strides[kiln_k * kiln_nd + kiln_d];                     \
        if (++kiln_idx[kiln_d] < (p)->shape[kiln_d]) break;                                \
        for (kiln_k = 0; kiln_k < kiln_nin; ++kiln_k)                                      \
          kiln_off[kiln_k] -= (p)->strides[kiln_k * kiln_nd + kiln_d] * (p)->shape[kiln_d]; \
        kiln_idx[kiln_d] = 0;                                                              \
      }                                                                                    \
    }                                                                                      \
  } while (0)

/*
 * A variadic reduction over the inputs: acc = LOAD(in0); acc = COMBINE(acc,
 * LOAD(in_k)) for k = 1..N-1; out = STORE(FINISH(acc, N)). CT is the compute type.
 */
#define KILN_DEFINE_VARIADIC_KERNEL(NAME, T, CT, LOAD, STORE, COMBINE, FINISH)          \
  kiln_status_t NAME(const kiln_broadcast_n_t* p, const void* const* in, T* out) {      \
    const kiln_status_t st = kiln_nary_check(p, in, out);                               \
    if (st != KILN_OK) return st;                                                       \
    KILN_NARY_WALK(p, {                                                                 \
      CT acc = LOAD(((const T*)in[0])[KILN_NARY_AT(0)]);                                \
      uint32_t m;                                                                       \
      for (m = 1u; m < kiln_nin; ++m) acc = COMBINE(acc, LOAD(((const T*)in[m])[KILN_NARY_AT(m)])); \
      out[kiln_j] = STORE(FINISH(acc, kiln_nin));                                       \
    });                                                                                 \
    return KILN_OK;                                                                     \
  }

#endif /* KILN_NARY_WALK_H */
