/* Indexing and data movement driven by index tensors or runtime shape arguments:
 * Gather, GatherElements, GatherND, ScatterElements, ScatterND, Slice, Pad, Split,
 * OneHot, Trilu.
 *
 * Data is moved as raw elements of `elem_size` bytes, so one kernel serves every
 * dtype; only the scatter reductions do arithmetic and are typed. Index tensors are
 * int32 or int64 (`index_size` 4 or 8); negative indices count from the end; an
 * index out of range returns KILN_ERR_BAD_ARGUMENT (the output is then undefined,
 * but nothing outside the buffers is touched). Outputs must not alias inputs except
 * where a kernel says so. */
#ifndef KILN_INDEXING_H
#define KILN_INDEXING_H

#include "kiln/kernel_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Gather: data [outer, axis_len, inner] -> out [outer, num_indices, inner]. */
typedef struct {
  uint32_t outer, axis_len, num_indices;
  uint32_t inner_bytes; /* inner * elem_size */
  uint32_t index_size;
} kiln_gather_params_t;
kiln_status_t kiln_gather(const kiln_gather_params_t* p, const void* data, const void* indices, void* out);

/* GatherElements: out (shape of indices) [i] = data[i with dim `axis` replaced by indices[i]].
 * ScatterElements uses the same geometry: out = data, then out[...] (op)= updates[i]. */
typedef struct {
  uint32_t ndim, axis;
  uint32_t elem_size, index_size;
  int32_t idx_shape[KILN_MAX_DIMS];    /* shape of indices (= out / updates) */
  int32_t data_stride[KILN_MAX_DIMS];  /* element strides of data */
  int32_t axis_len;                    /* data.shape[axis] */
  uint32_t data_count;                 /* elements of data (scatter copy) */
  uint32_t reduction;                  /* scatter only: kiln_scatter_reduction_t */
} kiln_gather_elements_params_t;
kiln_status_t kiln_gather_elements(const kiln_gather_elements_params_t* p, const void* data, const void* indices,
                                   void* out);

/* GatherND: indices [batch, tuples, k] address data [batch, d_0 .. d_k-1, slice]. */
typedef struct {
  uint32_t batch, tuples, k;
  uint32_t slice_bytes;             /* bytes of one addressed slice */
  uint32_t batch_bytes;             /* bytes of data per batch */
  int32_t dims[KILN_MAX_DIMS];      /* d_0 .. d_k-1 */
  int32_t strides[KILN_MAX_DIMS];   /* stride of d_j, in slices */
  uint32_t index_size;
  /* ScatterND only */
  uint32_t elem_size, data_count, reduction;
} kiln_gather_nd_params_t;
kiln_status_t kiln_gather_nd(const kiln_gather_nd_params_t* p, const void* data, const void* indices, void* out);

typedef enum {
  KILN_SCATTER_NONE = 0,
  KILN_SCATTER_ADD = 1,
  KILN_SCATTER_MUL = 2,
  KILN_SCATTER_MAX = 3,
  KILN_SCATTER_MIN = 4
} kiln_scatter_reduction_t;

/* ScatterElements / ScatterND: out = data (out == data allowed), then each update is
 * written (or reduced) at its index. Updates go in index order, so with reduction
 * none the last duplicate wins. */
#define KILN_DECLARE_SCATTER(suffix, T)                                                                \
  kiln_status_t kiln_scatter_elements_##suffix(const kiln_gather_elements_params_t* p, const T* data,  \
                                               const void* indices, const T* updates, T* out);         \
  kiln_status_t kiln_scatter_nd_##suffix(const kiln_gather_nd_params_t* p, const T* data, const void* indices, \
                                         const T* updates, T* out);
KILN_DECLARE_SCATTER(f32, float)
KILN_DECLARE_SCATTER(f64, double)
KILN_DECLARE_SCATTER(i8, int8_t)
KILN_DECLARE_SCATTER(u8, uint8_t)
KILN_DECLARE_SCATTER(i16, int16_t)
KILN_DECLARE_SCATTER(u16, uint16_t)
KILN_DECLARE_SCATTER(i32, int32_t)
KILN_DECLARE_SCATTER(u32, uint32_t)
KILN_DECLARE_SCATTER(i64, int64_t)
KILN_DECLARE_SCATTER(u64, uint64_t)
#undef KILN_DECLARE_SCATTER

/* Slice with runtime starts/ends/axes/steps (each `num` int32/int64 values; axes and
 * steps may be NULL). The computed output shape must equal `out_shape`. */
typedef struct {
  uint32_t ndim, elem_size, index_size, num;
  int32_t in_shape[KILN_MAX_DIMS];
  int32_t out_shape[KILN_MAX_DIMS];
} kiln_slice_params_t;
kiln_status_t kiln_slice(const kiln_slice_params_t* p, const void* data, const void* starts, const void* ends,
                         const void* axes, const void* steps, void* out);

/* Pad. pads = [begin_0..begin_n-1, end_0..end_n-1]: static in `pads`, or read at run
 * time (int64, 2*ndim values) from `pads_ptr`. Negative pads crop. The constant
 * value is `value` (raw bytes) unless `value_ptr` gives one element at run time. */
typedef enum { KILN_PAD_CONSTANT = 0, KILN_PAD_REFLECT = 1, KILN_PAD_EDGE = 2 } kiln_pad_mode_t;
typedef struct {
  uint32_t ndim, elem_size, mode;
  int32_t in_shape[KILN_MAX_DIMS];
  int32_t out_shape[KILN_MAX_DIMS];
  int32_t pads[2 * KILN_MAX_DIMS];
  uint8_t value[8];
} kiln_pad_params_t;
kiln_status_t kiln_pad(const kiln_pad_params_t* p, const void* data, const int64_t* pads_ptr, const void* value_ptr,
                       void* out);

/* Split along one axis: the input is [outer, sum(chunk)] and output i gets its chunk. */
#define KILN_SPLIT_MAX_OUTPUTS 64
typedef struct {
  uint32_t num_outputs, outer;
  uint32_t chunk_bytes[KILN_SPLIT_MAX_OUTPUTS];
} kiln_split_params_t;
kiln_status_t kiln_split(const kiln_split_params_t* p, const void* in, void* const* outputs);

/* OneHot: out [outer, depth, inner] = values[0] (off) except values[1] (on) where the
 * index (truncated toward zero; negative counts from depth) equals the position.
 * Indices out of range leave the whole lane off, as ONNX specifies. */
typedef enum {
  KILN_INDEX_I32 = 0, KILN_INDEX_I64 = 1, KILN_INDEX_F32 = 2, KILN_INDEX_F64 = 3,
  KILN_INDEX_I8 = 4, KILN_INDEX_U8 = 5, KILN_INDEX_I16 = 6, KILN_INDEX_U16 = 7,
  KILN_INDEX_U32 = 8, KILN_INDEX_U64 = 9
} kiln_index_type_t;
typedef struct {
  uint32_t outer, depth, inner, elem_size;
  uint32_t index_type; /* kiln_index_type_t */
} kiln_onehot_params_t;
kiln_status_t kiln_onehot(const kiln_onehot_params_t* p, const void* indices, const void* values, void* out);

/* Trilu over [batch, rows, cols]: keeps element (i, j) when j - i >= k (upper) or
 * j - i <= k (lower), else writes zero bytes. k is static or read (int64) from k_ptr.
 * out == in is allowed. */
typedef struct {
  uint32_t batch, rows, cols, elem_size, upper;
  int64_t k;
} kiln_trilu_params_t;
kiln_status_t kiln_trilu(const kiln_trilu_params_t* p, const void* in, const int64_t* k_ptr, void* out);

/* ConstantOfShape: `count` copies of one element (raw bytes). */
typedef struct {
  uint32_t count, elem_size;
  uint8_t value[8];
} kiln_fill_params_t;
kiln_status_t kiln_fill(const kiln_fill_params_t* p, void* out);

/* Range: out[i] = start + i * delta for the planned `count` elements; start, limit
 * and delta are runtime scalars, and the count they give must equal `count`. */
typedef struct {
  uint32_t count;
} kiln_range_params_t;
#define KILN_DECLARE_RANGE(suffix, T)                                                                  \
  kiln_status_t kiln_range_##suffix(const kiln_range_params_t* p, const T* start, const T* limit, const T* delta, \
                                    T* out);
KILN_DECLARE_RANGE(f32, float)
KILN_DECLARE_RANGE(f64, double)
KILN_DECLARE_RANGE(i16, int16_t)
KILN_DECLARE_RANGE(i32, int32_t)
KILN_DECLARE_RANGE(i64, int64_t)
#undef KILN_DECLARE_RANGE

#ifdef __cplusplus
}
#endif

#endif /* KILN_INDEXING_H */
