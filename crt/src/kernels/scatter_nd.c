/* ONNX ScatterND (typed for the reductions): out = data, then each index tuple's
 * slice of updates replaces or is combined with the slice it addresses. */
#include "index_read.h"
#include "kiln/indexing.h"

/* ScatterND: each index tuple selects a slice of `slice_bytes / elem_size` elements
 * that the matching slice of updates replaces or is combined with. */
#define KILN_SCATTER_ND(suffix, T, WIDE)                                                         \
  kiln_status_t kiln_scatter_nd_##suffix(const kiln_gather_nd_params_t* p, const T* data, const void* indices, \
                                         const T* updates, T* out) {                             \
    uint32_t t, j, e, n;                                                                         \
    size_t pos = 0;                                                                              \
    if (p == NULL || data == NULL || indices == NULL || updates == NULL || out == NULL)          \
      return KILN_ERR_NULL_POINTER;                                                              \
    if (p->k > KILN_MAX_DIMS || (p->index_size != 4u && p->index_size != 8u) || p->elem_size != sizeof(T) || \
        p->batch != 1u)                                                                          \
      return KILN_ERR_BAD_ARGUMENT;                                                              \
    n = p->slice_bytes / (uint32_t)sizeof(T);                                                    \
    if (out != data)                                                                             \
      for (e = 0; e < p->data_count; ++e) out[e] = data[e];                                      \
    for (t = 0; t < p->tuples; ++t) {                                                            \
      size_t slice = 0;                                                                          \
      for (j = 0; j < p->k; ++j) {                                                               \
        int64_t at = kiln_read_index(indices, p->index_size, pos++);                             \
        if (!kiln_normalize_index(&at, p->dims[j])) return KILN_ERR_BAD_ARGUMENT;                \
        slice += (size_t)at * (size_t)p->strides[j];                                             \
      }                                                                                          \
      for (e = 0; e < n; ++e) {                                                                  \
        KILN_SCATTER_APPLY(T, WIDE, out[slice * n + e], updates[(size_t)t * n + e], p->reduction) \
      }                                                                                          \
    }                                                                                            \
    return KILN_OK;                                                                              \
  }

KILN_SCATTER_ND(f32, float, float)
KILN_SCATTER_ND(f64, double, double)
KILN_SCATTER_ND(i8, int8_t, uint64_t)
KILN_SCATTER_ND(u8, uint8_t, uint64_t)
KILN_SCATTER_ND(i16, int16_t, uint64_t)
KILN_SCATTER_ND(u16, uint16_t, uint64_t)
KILN_SCATTER_ND(i32, int32_t, uint64_t)
KILN_SCATTER_ND(u32, uint32_t, uint64_t)
KILN_SCATTER_ND(i64, int64_t, uint64_t)
KILN_SCATTER_ND(u64, uint64_t, uint64_t)
