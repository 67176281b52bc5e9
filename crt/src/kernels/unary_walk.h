/*
 * The loops shared by the unary element-wise kernels (one output element per
 * input element). EXPR computes out[i] from x = in[i]; in-place use (out == in)
 * is safe since in[i] is read before out[i] is written.
 *
 *  KILN_DEFINE_UNARY_KERNEL_T(NAME, TI, TO, EXPR)      f(in, out, n)
 *  KILN_DEFINE_PARAM_UNARY_KERNEL(NAME, PT, TI, TO, EXPR)
 *                                                     f(p, in, out); n = p->n, and
 *                                                     EXPR may read the params `p`
 *  KILN_DEFINE_FLOAT_UNARY(OP, SFX, T, EXPR)          kiln_<OP>_<SFX> for a float
 *                                                     dtype; x has the compute type
 *                                                     and FN(exp) names its libm
 *                                                     function (expf or exp)
 */
#ifndef KILN_UNARY_WALK_H
#define KILN_UNARY_WALK_H

#include "elementwise_types.h"

#define KILN_DEFINE_UNARY_KERNEL_T(NAME, TI, TO, EXPR)                               \
  kiln_status_t NAME(const TI* in, TO* out, uint32_t n) {                            \
    uint32_t i;                                                                      \
    if (in == NULL || out == NULL) return n == 0u ? KILN_OK : KILN_ERR_NULL_POINTER; \
    for (i = 0; i < n; ++i) {                                                        \
      const TI x = in[i];                                                            \
      out[i] = (EXPR);                                                               \
    }                                                                                \
    return KILN_OK;                                                                  \
  }

#define KILN_DEFINE_PARAM_UNARY_KERNEL(NAME, PT, TI, TO, EXPR)                          \
  kiln_status_t NAME(const PT* p, const TI* in, TO* out) {                              \
    uint32_t i;                                                                         \
    if (p == NULL) return KILN_ERR_NULL_POINTER;                                        \
    if (in == NULL || out == NULL) return p->n == 0u ? KILN_OK : KILN_ERR_NULL_POINTER; \
    for (i = 0; i < p->n; ++i) {                                                        \
      const TI x = in[i];                                                               \
      out[i] = (EXPR);                                                                  \
    }                                                                                   \
    return KILN_OK;                                                                     \
  }

/* Float dtypes: load to the compute type, apply EXPR (in terms of x and FN), store. */
#define KILN_DEFINE_FLOAT_UNARY(OP, SFX, T, EXPR)                                      \
  static inline KILN_CT_##SFX kiln_##OP##_one_##SFX(KILN_CT_##SFX x) {                \
    typedef KILN_CT_##SFX CT;                                                          \
    (void)sizeof(CT);                                                                  \
    return (EXPR);                                                                     \
  }                                                                                    \
  KILN_DEFINE_UNARY_KERNEL_T(kiln_##OP##_##SFX, T, T,                                  \
                             KILN_STORE_##SFX(kiln_##OP##_one_##SFX(KILN_LOAD_##SFX(x))))

/* The same with activation parameters (alpha, beta, gamma in the compute type). */
#define KILN_DEFINE_FLOAT_ACTIVATION(OP, SFX, T, EXPR)                                           \
  static inline KILN_CT_##SFX kiln_##OP##_one_##SFX(KILN_CT_##SFX x, KILN_CT_##SFX alpha,       \
                                                    KILN_CT_##SFX beta, KILN_CT_##SFX gamma) {   \
    typedef KILN_CT_##SFX CT;                                                                    \
    (void)sizeof(CT);                                                                            \
    (void)alpha;                                                                                 \
    (void)beta;                                                                                  \
    (void)gamma;                                                                                 \
    return (EXPR);                                                                               \
  }                                                                                              \
  KILN_DEFINE_PARAM_UNARY_KERNEL(kiln_##OP##_##SFX, kiln_activation_params_t, T, T,              \
                                 KILN_STORE_##SFX(kiln_##OP##_one_##SFX(                         \
                                     KILN_LOAD_##SFX(x), (KILN_CT_##SFX)p->alpha,                \
                                     (KILN_CT_##SFX)p->beta, (KILN_CT_##SFX)p->gamma)))

#endif /* KILN_UNARY_WALK_H */
