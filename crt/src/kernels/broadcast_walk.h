/*
 * The loop shared by the broadcasting binary kernels (add.c, sub.c, ...). The
 * innermost output dimension is a straight loop with the two inputs' strides
 * (0 when broadcast, usually 1); the outer dimensions advance an index counter,
 * so there is no division or modulo per element.
 *
 * In-place use (out == a or out == b) is safe: element i of an input of the
 * output's shape is read before out[i] is written.
 *
 * KILN_DEFINE_BINARY_KERNEL_T takes the element types of A, B and the output
 * separately (comparisons write bool, Pow mixes base and exponent types); EXPR
 * computes out[i] from x (an A element) and y (a B element).
 */
#ifndef KILN_BROADCAST_WALK_H
#define KILN_BROADCAST_WALK_H

#include "kiln/kernel_common.h"

#define KILN_DEFINE_BINARY_KERNEL(NAME, T, EXPR) KILN_DEFINE_BINARY_KERNEL_T(NAME, T, T, T, EXPR)

#define KILN_DEFINE_BINARY_KERNEL_T(NAME, TA, TB, TO, EXPR)                             \
  kiln_status_t NAME(const kiln_broadcast_t* p, const TA* a, const TB* b, TO* out) {    \
    int32_t idx[KILN_MAX_DIMS] = {0};                                                   \
    uint32_t last, d, outer = 1;                                                        \
    int32_t n, sa, sb, i, oa = 0, ob = 0;                                               \
    if (p == NULL || a == NULL || b == NULL || out == NULL) return KILN_ERR_NULL_POINTER; \
    if (p->ndim < 1u || p->ndim > KILN_MAX_DIMS) return KILN_ERR_BAD_ARGUMENT;          \
    last = p->ndim - 1u;                                                                \
    n = p->shape[last];                                                                 \
    sa = p->stride_a[last];                                                             \
    sb = p->stride_b[last];                                                             \
    for (d = 0; d < last; ++d) outer *= (uint32_t)p->shape[d];                          \
    if (n <= 0) return KILN_OK;                                                         \
    for (; outer > 0u; --outer) {                                                       \
      const TA* pa = a + oa;                                                            \
      const TB* pb = b + ob;                                                            \
      for (i = 0; i < n; ++i) {                                                         \
        const TA x = pa[i * sa];                                                        \
        const TB y = pb[i * sb];                                                        \
        out[i] = (EXPR);                                                                \
      }                                                                                 \
      out += n;                                                                         \
      for (d = last; d-- > 0u;) { /* odometer over the outer dimensions */              \
        oa += p->stride_a[d];                                                           \
        ob += p->stride_b[d];                                                           \
        if (++idx[d] < p->shape[d]) break;                                              \
        oa -= p->stride_a[d] * p->shape[d];                                             \
        ob -= p->stride_b[d] * p->shape[d];                                             \
        idx[d] = 0;                                                                     \
      }                                                                                 \
    }                                                                                   \
    return KILN_OK;                                                                     \
  }

#endif /* KILN_BROADCAST_WALK_H */
