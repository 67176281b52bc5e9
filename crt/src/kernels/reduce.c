/* ONNX Reduce* (Sum Mean Max Min Prod L1 L2 LogSum LogSumExp SumSquare).
 *
 * The input is split into kept and reduced dimensions (with their element
 * strides); the output walks the kept dimensions in order with an odometer and,
 * for each output element, walks the reduced dimensions with a second odometer.
 * Floating point accumulates in its own type; integers accumulate in uint64_t so
 * overflow wraps (defined) instead of being undefined behaviour. */
#include <math.h>

#include "kiln/reduce.h"

typedef struct {
  uint32_t kn, rn;                 /* kept / reduced dimension counts */
  int32_t ks[KILN_MAX_DIMS], kst[KILN_MAX_DIMS];
  int32_t rs[KILN_MAX_DIMS], rst[KILN_MAX_DIMS];
  uint32_t out_count, red_count;
} reduce_plan_t;

static kiln_status_t plan_reduce(const kiln_reduce_params_t* p, const int64_t* axes, reduce_plan_t* pl) {
  uint32_t mask = p->axes_mask, d;
  int32_t stride = 1;
  if (p->ndim < 1u || p->ndim > KILN_MAX_DIMS || p->op > (uint32_t)KILN_REDUCE_SUM_SQUARE) return KILN_ERR_BAD_ARGUMENT;
  if (axes != NULL) {
    mask = 0u;
    for (d = 0; d < p->num_axes; ++d) {
      int64_t a = axes[d];
      if (a < 0) a += (int64_t)p->ndim;
      if (a < 0 || a >= (int64_t)p->ndim) return KILN_ERR_BAD_ARGUMENT;
      mask |= 1u << (uint32_t)a;
    }
  }
  pl->kn = pl->rn = 0u;
  pl->out_count = pl->red_count = 1u;
  /* Walk from the innermost dimension to get the strides, then reverse into place. */
  for (d = p->ndim; d-- > 0u;) {
    if (p->shape[d] < 0) return KILN_ERR_BAD_ARGUMENT;
    if (mask & (1u << d)) {
      pl->rs[pl->rn] = p->shape[d];
      pl->rst[pl->rn++] = stride;
      pl->red_count *= (uint32_t)p->shape[d];
    } else {
      pl->ks[pl->kn] = p->shape[d];
      pl->kst[pl->kn++] = stride;
      pl->out_count *= (uint32_t)p->shape[d];
    }
    stride *= p->shape[d];
  }
  for (d = 0; d < pl->kn / 2u; ++d) {
    int32_t t = pl->ks[d]; pl->ks[d] = pl->ks[pl->kn - 1u - d]; pl->ks[pl->kn - 1u - d] = t;
    t = pl->kst[d]; pl->kst[d] = pl->kst[pl->kn - 1u - d]; pl->kst[pl->kn - 1u - d] = t;
  }
  for (d = 0; d < pl->rn / 2u; ++d) {
    int32_t t = pl->rs[d]; pl->rs[d] = pl->rs[pl->rn - 1u - d]; pl->rs[pl->rn - 1u - d] = t;
    t = pl->rst[d]; pl->rst[d] = pl->rst[pl->rn - 1u - d]; pl->rst[pl->rn - 1u - d] = t;
  }
  if (pl->out_count != p->out_count) return KILN_ERR_BAD_ARGUMENT;
  return KILN_OK;
}

/* Advances an odometer over `n` dims; returns the change of the element offset. */
static int32_t odometer_step(int32_t* idx, const int32_t* shape, const int32_t* stride, uint32_t n) {
  int32_t delta = 0;
  uint32_t d;
  for (d = n; d-- > 0u;) {
    delta += stride[d];
    if (++idx[d] < shape[d]) return delta;
    delta -= stride[d] * shape[d];
    idx[d] = 0;
  }
  return delta;
}

/* Floating point: every op, accumulation in T. LogSumExp takes a max pass first so
 * exp() cannot overflow. */
#define KILN_REDUCE_FLOAT(suffix, T, EXP, LOG, SQRT, FABS)                                          \
  kiln_status_t kiln_reduce_##suffix(const kiln_reduce_params_t* p, const T* in, const int64_t* axes, T* out) { \
    reduce_plan_t pl;                                                                               \
    int32_t kidx[KILN_MAX_DIMS] = {0}, ridx[KILN_MAX_DIMS] = {0};                                   \
    int32_t base = 0;                                                                               \
    uint32_t o, r;                                                                                  \
    kiln_status_t st;                                                                               \
    if (p == NULL || in == NULL || out == NULL) return KILN_ERR_NULL_POINTER;                       \
    if (p->num_axes > 0u && axes == NULL && p->axes_mask == 0u) return KILN_ERR_NULL_POINTER;      \
    st = plan_reduce(p, axes, &pl);                                                                 \
    if (st != KILN_OK) return st;                                                                   \
    for (o = 0; o < pl.out_count; ++o) {                                                            \
      int32_t off = base;                                                                           \
      T acc, m = (T)0;                                                                              \
      switch (p->op) {                                                                              \
        case KILN_REDUCE_PROD: acc = (T)1; break;                                                   \
        case KILN_REDUCE_MAX: acc = (T)-INFINITY; break;                                            \
        case KILN_REDUCE_MIN: acc = (T)INFINITY; break;                                             \
        default: acc = (T)0; break;                                                                 \
      }                                                                                             \
      if (p->op == KILN_REDUCE_LOG_SUM_EXP) {                                                       \
        m = (T)-INFINITY;                                                                           \
        for (r = 0; r < pl.red_count; ++r) {                                                        \
          if (in[off] > m) m = in[off];                                                             \
          off += odometer_step(ridx, pl.rs, pl.rst, pl.rn);                                         \
        }                                                                                           \
        if (!(m > (T)-INFINITY && m < (T)INFINITY)) m = (T)0; /* all -inf or inf: no shift */       \
        off = base;                                                                                 \
      }                                                                                             \
      for (r = 0; r < pl.red_count; ++r) {                                                          \
        const T v = in[off];                                                                        \
        switch (p->op) {                                                                            \
          case KILN_REDUCE_MAX: if (v > acc || v != v) acc = v; break;                              \
          case KILN_REDUCE_MIN: if (v < acc || v != v) acc = v; break;                              \
          case KILN_REDUCE_PROD: acc *= v; break;                                                   \
          case KILN_REDUCE_L1: acc += FABS(v); break;                                               \
          case KILN_REDUCE_L2:                                                                      \
          case KILN_REDUCE_SUM_SQUARE: acc += v * v; break;                                         \
          case KILN_REDUCE_LOG_SUM_EXP: acc += EXP(v - m); break;                                   \
          default: acc += v; break;                                                                 \
        }                                                                                           \
        off += odometer_step(ridx, pl.rs, pl.rst, pl.rn);                                           \
      }                                                                                             \
      switch (p->op) {                                                                              \
        case KILN_REDUCE_MEAN: acc = pl.red_count ? acc / (T)pl.red_count : (T)NAN; break;         \
        case KILN_REDUCE_L2: acc = SQRT(acc); break;                                                \
        case KILN_REDUCE_LOG_SUM: acc = LOG(acc); break;                                            \
        case KILN_REDUCE_LOG_SUM_EXP: acc = m + LOG(acc); break;                                    \
        default: break;                                                                             \
      }                                                                                             \
      out[o] = acc;                                                                                 \
      base += odometer_step(kidx, pl.ks, pl.kst, pl.kn);                                            \
    }                                                                                               \
    return KILN_OK;                                                                                 \
  }

KILN_REDUCE_FLOAT(f32, float, expf, logf, sqrtf, fabsf)
KILN_REDUCE_FLOAT(f64, double, exp, log, sqrt, fabs)

/* Integers: Sum/Mean/Prod/L1/SumSquare wrap in uint64_t (converted back to T, as a
 * fixed-width ONNX runtime would); Max/Min compare in T. LO/HI are T's limits (the
 * empty-reduction identities); MAG is |v| as uint64_t. */
#define KILN_MAG_S(v) ((v) < 0 ? (uint64_t)0 - (uint64_t)(v) : (uint64_t)(v))
#define KILN_MAG_U(v) ((uint64_t)(v))
#define KILN_REDUCE_INT(suffix, T, IS_SIGNED, MAG, LO, HI)                                                \
  kiln_status_t kiln_reduce_##suffix(const kiln_reduce_params_t* p, const T* in, const int64_t* axes, T* out) { \
    reduce_plan_t pl;                                                                               \
    int32_t kidx[KILN_MAX_DIMS] = {0}, ridx[KILN_MAX_DIMS] = {0};                                   \
    int32_t base = 0;                                                                               \
    uint32_t o, r;                                                                                  \
    kiln_status_t st;                                                                               \
    if (p == NULL || in == NULL || out == NULL) return KILN_ERR_NULL_POINTER;                       \
    if (p->num_axes > 0u && axes == NULL && p->axes_mask == 0u) return KILN_ERR_NULL_POINTER;      \
    /* L2 / LogSum / LogSumExp have no exact integer result: the compiler rejects them. */       \
    if (p->op == KILN_REDUCE_L2 || p->op == KILN_REDUCE_LOG_SUM || p->op == KILN_REDUCE_LOG_SUM_EXP)  \
      return KILN_ERR_BAD_ARGUMENT;                                                                 \
    st = plan_reduce(p, axes, &pl);                                                                 \
    if (st != KILN_OK) return st;                                                                   \
    for (o = 0; o < pl.out_count; ++o) {                                                            \
      int32_t off = base;                                                                           \
      uint64_t acc = p->op == KILN_REDUCE_PROD ? 1u : 0u;                                           \
      T best = p->op == KILN_REDUCE_MAX ? (T)(LO) : (T)(HI);                                        \
      for (r = 0; r < pl.red_count; ++r) {                                                          \
        const T v = in[off];                                                                        \
        const uint64_t mag = MAG(v);                                                                \
        switch (p->op) {                                                                            \
          case KILN_REDUCE_MAX: if (v > best) best = v; break;                                      \
          case KILN_REDUCE_MIN: if (v < best) best = v; break;                                      \
          case KILN_REDUCE_PROD: acc *= (uint64_t)v; break;                                         \
          case KILN_REDUCE_L1: acc += mag; break;                                                   \
          case KILN_REDUCE_SUM_SQUARE: acc += mag * mag; break;                                     \
          default: acc += (uint64_t)v; break;                                                       \
        }                                                                                           \
        off += odometer_step(ridx, pl.rs, pl.rst, pl.rn);                                           \
      }                                                                                             \
      switch (p->op) {                                                                              \
        case KILN_REDUCE_MAX: case KILN_REDUCE_MIN: out[o] = best; break;                           \
        case KILN_REDUCE_MEAN:                                                                      \
          if (pl.red_count == 0u) { out[o] = (T)0; break; }                                         \
          if (IS_SIGNED) out[o] = (T)((int64_t)acc / (int64_t)pl.red_count);                        \
          else out[o] = (T)(acc / pl.red_count);                                                    \
          break;                                                                                    \
        default: out[o] = (T)acc; break;                                                            \
      }                                                                                             \
      base += odometer_step(kidx, pl.ks, pl.kst, pl.kn);                                            \
    }                                                                                               \
    return KILN_OK;                                                                                 \
  }

KILN_REDUCE_INT(i8, int8_t, 1, KILN_MAG_S, INT8_MIN, INT8_MAX)
KILN_REDUCE_INT(u8, uint8_t, 0, KILN_MAG_U, 0, UINT8_MAX)
KILN_REDUCE_INT(i16, int16_t, 1, KILN_MAG_S, INT16_MIN, INT16_MAX)
KILN_REDUCE_INT(u16, uint16_t, 0, KILN_MAG_U, 0, UINT16_MAX)
KILN_REDUCE_INT(i32, int32_t, 1, KILN_MAG_S, INT32_MIN, INT32_MAX)
KILN_REDUCE_INT(u32, uint32_t, 0, KILN_MAG_U, 0, UINT32_MAX)
KILN_REDUCE_INT(i64, int64_t, 1, KILN_MAG_S, INT64_MIN, INT64_MAX)
KILN_REDUCE_INT(u64, uint64_t, 0, KILN_MAG_U, 0, UINT64_MAX)
