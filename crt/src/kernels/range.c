/* ONNX Range: out[i] = start + i * delta. The element count follows from runtime
 * scalars, so it is recomputed here, as ONNX defines it (max(ceil((limit - start) /
 * delta), 0), in double), and must be the count the compiler planned. Integer
 * values wrap in uint64_t (no undefined overflow) and are converted back. */
#include <math.h>

#include "kiln/indexing.h"

#define KILN_RANGE(suffix, T, WIDE)                                                                   \
  kiln_status_t kiln_range_##suffix(const kiln_range_params_t* p, const T* start, const T* limit, const T* delta, \
                                    T* out) {                                                         \
    uint32_t i;                                                                                       \
    double n;                                                                                         \
    if (p == NULL || start == NULL || limit == NULL || delta == NULL || (out == NULL && p->count > 0u)) \
      return KILN_ERR_NULL_POINTER;                                                                   \
    if (!(*delta < (T)0 || *delta > (T)0)) return KILN_ERR_BAD_ARGUMENT;                             \
    n = ceil(((double)*limit - (double)*start) / (double)*delta);                                     \
    if (!(n == n)) return KILN_ERR_BAD_ARGUMENT;                                                      \
    if (n < 0.0) n = 0.0;                                                                             \
    if (n != (double)p->count) return KILN_ERR_BAD_ARGUMENT;                                          \
    for (i = 0; i < p->count; ++i) out[i] = (T)((WIDE)*start + (WIDE)i * (WIDE)*delta);              \
    return KILN_OK;                                                                                   \
  }

KILN_RANGE(f32, float, float)
KILN_RANGE(f64, double, double)
KILN_RANGE(i16, int16_t, uint64_t)
KILN_RANGE(i32, int32_t, uint64_t)
KILN_RANGE(i64, int64_t, uint64_t)
