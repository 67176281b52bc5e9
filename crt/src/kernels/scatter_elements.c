/* ONNX ScatterElements / Scatter (typed for the reductions): out = data, then each
 * update, in index order, replaces or is combined with its target element. */
#include "index_read.h"
#include "kiln/indexing.h"

#define KILN_SCATTER_ELEMENTS(suffix, T, WIDE)                                                   \
  kiln_status_t kiln_scatter_elements_##suffix(const kiln_gather_elements_params_t* p, const T* data, \
                                               const void* indices, const T* updates, T* out) {  \
    int32_t idx[KILN_MAX_DIMS] = {0};                                                            \
    uint32_t d, count = 1u, i;                                                                   \
    int32_t off = 0;                                                                             \
    if (p == NULL || data == NULL || indices == NULL || updates == NULL || out == NULL)          \
      return KILN_ERR_NULL_POINTER;                                                              \
    if (p->ndim < 1u || p->ndim > KILN_MAX_DIMS || p->axis >= p->ndim) return KILN_ERR_BAD_ARGUMENT; \
    if (p->index_size != 4u && p->index_size != 8u) return KILN_ERR_BAD_ARGUMENT;                \
    if (out != data)                                                                             \
      for (i = 0; i < p->data_count; ++i) out[i] = data[i];                                      \
    for (d = 0; d < p->ndim; ++d) count *= (uint32_t)p->idx_shape[d];                            \
    for (i = 0; i < count; ++i) {                                                                \
      int64_t at = kiln_read_index(indices, p->index_size, i);                                   \
      if (!kiln_normalize_index(&at, p->axis_len)) return KILN_ERR_BAD_ARGUMENT;                 \
      {                                                                                          \
        T* target = out + (size_t)off + (size_t)at * (size_t)p->data_stride[p->axis];            \
        KILN_SCATTER_APPLY(T, WIDE, *target, updates[i], p->reduction)                           \
      }                                                                                          \
      for (d = p->ndim; d-- > 0u;) {                                                             \
        const int32_t s = d == p->axis ? 0 : p->data_stride[d];                                  \
        off += s;                                                                                \
        if (++idx[d] < p->idx_shape[d]) break;                                                   \
        off -= s * p->idx_shape[d];                                                              \
        idx[d] = 0;                                                                              \
      }                                                                                          \
    }                                                                                            \
    return KILN_OK;                                                                              \
  }

KILN_SCATTER_ELEMENTS(f32, float, float)
KILN_SCATTER_ELEMENTS(f64, double, double)
KILN_SCATTER_ELEMENTS(i8, int8_t, uint64_t)
KILN_SCATTER_ELEMENTS(u8, uint8_t, uint64_t)
KILN_SCATTER_ELEMENTS(i16, int16_t, uint64_t)
KILN_SCATTER_ELEMENTS(u16, uint16_t, uint64_t)
KILN_SCATTER_ELEMENTS(i32, int32_t, uint64_t)
KILN_SCATTER_ELEMENTS(u32, uint32_t, uint64_t)
KILN_SCATTER_ELEMENTS(i64, int64_t, uint64_t)
KILN_SCATTER_ELEMENTS(u64, uint64_t, uint64_t)
