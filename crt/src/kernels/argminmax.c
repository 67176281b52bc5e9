/* ONNX ArgMax / ArgMin over one axis of [outer, axis, inner]; int64 indices out.
 * Ties keep the first index, or the last with select_last_index. A NaN is never
 * selected over a number (comparisons with NaN are false). */
#include "kiln/reduce.h"

#define KILN_ARGMINMAX(suffix, T)                                                               \
  kiln_status_t kiln_argminmax_##suffix(const kiln_argminmax_params_t* p, const T* in, int64_t* out) { \
    uint32_t o, a, i;                                                                           \
    if (p == NULL || in == NULL || out == NULL) return KILN_ERR_NULL_POINTER;                   \
    if (p->axis == 0u) return KILN_ERR_BAD_ARGUMENT;                                            \
    for (o = 0; o < p->outer; ++o) {                                                            \
      for (i = 0; i < p->inner; ++i) {                                                          \
        const T* x = in + ((size_t)o * p->axis) * p->inner + i;                                 \
        uint32_t best = 0u;                                                                     \
        for (a = 1; a < p->axis; ++a) {                                                         \
          const T v = x[(size_t)a * p->inner], b = x[(size_t)best * p->inner];                  \
          const int better = p->is_min ? (v < b) : (v > b);                                     \
          const int tie = !(v < b) && !(v > b);                                                 \
          if (better || (tie && p->select_last_index)) best = a;                                \
        }                                                                                       \
        out[(size_t)o * p->inner + i] = (int64_t)best;                                          \
      }                                                                                         \
    }                                                                                           \
    return KILN_OK;                                                                             \
  }

KILN_ARGMINMAX(f32, float)
KILN_ARGMINMAX(f64, double)
KILN_ARGMINMAX(i8, int8_t)
KILN_ARGMINMAX(u8, uint8_t)
KILN_ARGMINMAX(i16, int16_t)
KILN_ARGMINMAX(u16, uint16_t)
KILN_ARGMINMAX(i32, int32_t)
KILN_ARGMINMAX(u32, uint32_t)
KILN_ARGMINMAX(i64, int64_t)
KILN_ARGMINMAX(u64, uint64_t)
