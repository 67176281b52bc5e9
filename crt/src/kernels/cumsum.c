/* ONNX CumSum along one axis (exclusive, reverse). The axis comes from an input
 * tensor: fixed at compile time, or read here when it is a runtime value. Running
 * sums go front to back (or back to front), reading each input element before its
 * output is written, so out == in is allowed. Integer sums wrap in uint64_t. */
#include <string.h>

#include "kiln/reduce.h"

static kiln_status_t cumsum_geometry(const kiln_cumsum_params_t* p, const void* axis_ptr, uint32_t* outer,
                                     uint32_t* len, uint32_t* inner) {
  int64_t axis = p->axis;
  uint32_t d;
  if (p->ndim < 1u || p->ndim > KILN_MAX_DIMS) return KILN_ERR_BAD_ARGUMENT;
  if (axis_ptr != NULL) {
    if (p->axis_size == 8u) {
      memcpy(&axis, axis_ptr, 8);
    } else if (p->axis_size == 4u) {
      int32_t a32;
      memcpy(&a32, axis_ptr, 4);
      axis = a32;
    } else {
      return KILN_ERR_BAD_ARGUMENT;
    }
  }
  if (axis < 0) axis += (int64_t)p->ndim;
  if (axis < 0 || axis >= (int64_t)p->ndim) return KILN_ERR_BAD_ARGUMENT;
  *outer = *inner = 1u;
  for (d = 0; d < p->ndim; ++d) {
    if (p->shape[d] < 0) return KILN_ERR_BAD_ARGUMENT;
    if ((int64_t)d < axis) *outer *= (uint32_t)p->shape[d];
    else if ((int64_t)d > axis) *inner *= (uint32_t)p->shape[d];
  }
  *len = (uint32_t)p->shape[axis];
  return KILN_OK;
}

/* ACC: the accumulator type; float types sum in themselves, integers in uint64_t. */
#define KILN_CUMSUM(suffix, T, ACC)                                                             \
  kiln_status_t kiln_cumsum_##suffix(const kiln_cumsum_params_t* p, const T* in, const void* axis_ptr, T* out) { \
    uint32_t outer, len, inner, o, i, a;                                                        \
    kiln_status_t st;                                                                           \
    if (p == NULL || in == NULL || out == NULL) return KILN_ERR_NULL_POINTER;                   \
    st = cumsum_geometry(p, axis_ptr, &outer, &len, &inner);                                    \
    if (st != KILN_OK) return st;                                                               \
    for (o = 0; o < outer; ++o) {                                                               \
      for (i = 0; i < inner; ++i) {                                                             \
        const size_t base = (size_t)o * len * inner + i;                                        \
        ACC acc = (ACC)0;                                                                       \
        for (a = 0; a < len; ++a) {                                                             \
          const size_t at = base + (size_t)(p->reverse ? len - 1u - a : a) * inner;             \
          const T v = in[at];                                                                   \
          if (p->exclusive) {                                                                   \
            out[at] = (T)acc;                                                                   \
            acc += (ACC)v;                                                                      \
          } else {                                                                              \
            acc += (ACC)v;                                                                      \
            out[at] = (T)acc;                                                                   \
          }                                                                                     \
        }                                                                                       \
      }                                                                                         \
    }                                                                                           \
    return KILN_OK;                                                                             \
  }

KILN_CUMSUM(f32, float, float)
KILN_CUMSUM(f64, double, double)
KILN_CUMSUM(i32, int32_t, uint64_t)
KILN_CUMSUM(u32, uint32_t, uint64_t)
KILN_CUMSUM(i64, int64_t, uint64_t)
KILN_CUMSUM(u64, uint64_t, uint64_t)
