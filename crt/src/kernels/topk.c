/* ONNX TopK along one axis of [outer, axis, inner]. For each lane, an insertion
 * sort into the k output slots (O(axis * k), no scratch): an element enters only
 * when strictly better than the current k-th, and goes after the equal ones, so
 * equal values keep the lower index first, as ONNX requires. */
#include "kiln/reduce.h"

#define KILN_TOPK(suffix, T)                                                                     \
  kiln_status_t kiln_topk_##suffix(const kiln_topk_params_t* p, const T* in, const int64_t* k_ptr, T* values, \
                                   int64_t* indices) {                                           \
    uint32_t o, i, a, n, j;                                                                      \
    if (p == NULL || in == NULL || values == NULL || indices == NULL) return KILN_ERR_NULL_POINTER; \
    if (p->k > p->axis) return KILN_ERR_BAD_ARGUMENT;                                            \
    if (k_ptr != NULL && *k_ptr != (int64_t)p->k) return KILN_ERR_BAD_ARGUMENT;                  \
    for (o = 0; o < p->outer; ++o) {                                                             \
      for (i = 0; i < p->inner; ++i) {                                                           \
        const T* x = in + (size_t)o * p->axis * p->inner + i;                                    \
        T* vo = values + (size_t)o * p->k * p->inner + i;                                        \
        int64_t* io = indices + (size_t)o * p->k * p->inner + i;                                 \
        n = 0u; /* filled slots */                                                               \
        for (a = 0; a < p->axis && p->k > 0u; ++a) {                                             \
          const T v = x[(size_t)a * p->inner];                                                   \
          /* Find the insertion point: after every slot that is at least as good. */            \
          j = n;                                                                                 \
          while (j > 0u && (p->largest ? v > vo[(size_t)(j - 1u) * p->inner] : v < vo[(size_t)(j - 1u) * p->inner])) --j; \
          if (j >= p->k) continue;                                                               \
          if (n < p->k) ++n;                                                                     \
          {                                                                                      \
            uint32_t s;                                                                          \
            for (s = n - 1u; s > j; --s) {                                                       \
              vo[(size_t)s * p->inner] = vo[(size_t)(s - 1u) * p->inner];                        \
              io[(size_t)s * p->inner] = io[(size_t)(s - 1u) * p->inner];                        \
            }                                                                                    \
          }                                                                                      \
          vo[(size_t)j * p->inner] = v;                                                          \
          io[(size_t)j * p->inner] = (int64_t)a;                                                 \
        }                                                                                        \
      }                                                                                          \
    }                                                                                            \
    return KILN_OK;                                                                              \
  }

KILN_TOPK(f32, float)
KILN_TOPK(f64, double)
KILN_TOPK(i8, int8_t)
KILN_TOPK(u8, uint8_t)
KILN_TOPK(i16, int16_t)
KILN_TOPK(u16, uint16_t)
KILN_TOPK(i32, int32_t)
KILN_TOPK(u32, uint32_t)
KILN_TOPK(i64, int64_t)
KILN_TOPK(u64, uint64_t)
