/* Reductions and the ops that scan one axis: Reduce*, ArgMax/ArgMin, CumSum, TopK,
 * LogSoftmax, Hardmax. Outputs must not alias inputs unless a kernel says so.
 *
 * Dtype suffixes follow kiln_kernels.h. Each typed kernel is instantiated from one
 * macro body per dtype family, so every dtype runs the same spelled-out loop. */
#ifndef KILN_REDUCE_H
#define KILN_REDUCE_H

#include "kiln/kernel_common.h"
#include "kiln/normalization.h" /* kiln_softmax_params_t */

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Reduce* ---------------------------------------------------------------- */
typedef enum {
  KILN_REDUCE_SUM = 0,
  KILN_REDUCE_MEAN = 1,
  KILN_REDUCE_MAX = 2,
  KILN_REDUCE_MIN = 3,
  KILN_REDUCE_PROD = 4,
  KILN_REDUCE_L1 = 5,
  KILN_REDUCE_L2 = 6,
  KILN_REDUCE_LOG_SUM = 7,
  KILN_REDUCE_LOG_SUM_EXP = 8,
  KILN_REDUCE_SUM_SQUARE = 9
} kiln_reduce_op_t;

/*
 * Reduces the input (shape `shape`, rank `ndim`) over the dimensions in
 * `axes_mask` (bit d = dimension d). The output holds the kept dimensions in order
 * (keepdims only changes the shape, not the layout).
 *
 * When the axes are a runtime tensor the kernel receives it as `axes` (int64,
 * `num_axes` entries, possibly negative) and derives the mask itself; the result
 * must have `out_count` elements, the output size the compiler planned, else the
 * kernel returns KILN_ERR_BAD_ARGUMENT without writing. `axes == NULL` uses
 * `axes_mask` as is (0 = copy: noop_with_empty_axes).
 */
typedef struct {
  uint32_t op;        /* kiln_reduce_op_t */
  uint32_t ndim;      /* 1..KILN_MAX_DIMS (a scalar is shape [1]) */
  int32_t shape[KILN_MAX_DIMS];
  uint32_t axes_mask;
  uint32_t num_axes;  /* entries of the runtime `axes` tensor */
  uint32_t out_count;
} kiln_reduce_params_t;

#define KILN_DECLARE_REDUCE(suffix, T) \
  kiln_status_t kiln_reduce_##suffix(const kiln_reduce_params_t* p, const T* in, const int64_t* axes, T* out);
KILN_DECLARE_REDUCE(f32, float)
KILN_DECLARE_REDUCE(f64, double)
KILN_DECLARE_REDUCE(i8, int8_t)
KILN_DECLARE_REDUCE(u8, uint8_t)
KILN_DECLARE_REDUCE(i16, int16_t)
KILN_DECLARE_REDUCE(u16, uint16_t)
KILN_DECLARE_REDUCE(i32, int32_t)
KILN_DECLARE_REDUCE(u32, uint32_t)
KILN_DECLARE_REDUCE(i64, int64_t)
KILN_DECLARE_REDUCE(u64, uint64_t)
#undef KILN_DECLARE_REDUCE

/* ---- ArgMax / ArgMin over [outer, axis, inner]; int64 indices out ---------------- */
typedef struct {
  uint32_t outer, axis, inner;
  uint32_t is_min;            /* 0: ArgMax, 1: ArgMin */
  uint32_t select_last_index; /* ties: 0 first, 1 last occurrence */
} kiln_argminmax_params_t;

#define KILN_DECLARE_ARG(suffix, T) \
  kiln_status_t kiln_argminmax_##suffix(const kiln_argminmax_params_t* p, const T* in, int64_t* out);
KILN_DECLARE_ARG(f32, float)
KILN_DECLARE_ARG(f64, double)
KILN_DECLARE_ARG(i8, int8_t)
KILN_DECLARE_ARG(u8, uint8_t)
KILN_DECLARE_ARG(i16, int16_t)
KILN_DECLARE_ARG(u16, uint16_t)
KILN_DECLARE_ARG(i32, int32_t)
KILN_DECLARE_ARG(u32, uint32_t)
KILN_DECLARE_ARG(i64, int64_t)
KILN_DECLARE_ARG(u64, uint64_t)
#undef KILN_DECLARE_ARG

/* ---- CumSum ------------------------------------------------------------------------
 * The axis is an input tensor: static (`axis`, axis_ptr == NULL) or read at run time
 * from `axis_ptr` (one int32 or int64, per `axis_size`). Allows out == in. */
typedef struct {
  uint32_t ndim;
  int32_t shape[KILN_MAX_DIMS];
  int32_t axis;        /* may be negative */
  uint32_t axis_size;  /* 4 or 8: element size of the runtime axis tensor */
  uint32_t exclusive, reverse;
} kiln_cumsum_params_t;

#define KILN_DECLARE_CUMSUM(suffix, T) \
  kiln_status_t kiln_cumsum_##suffix(const kiln_cumsum_params_t* p, const T* in, const void* axis_ptr, T* out);
KILN_DECLARE_CUMSUM(f32, float)
KILN_DECLARE_CUMSUM(f64, double)
KILN_DECLARE_CUMSUM(i32, int32_t)
KILN_DECLARE_CUMSUM(u32, uint32_t)
KILN_DECLARE_CUMSUM(i64, int64_t)
KILN_DECLARE_CUMSUM(u64, uint64_t)
#undef KILN_DECLARE_CUMSUM

/* ---- TopK over [outer, axis, inner] -------------------------------------------------
 * `k` is fixed by the planned output shape; a runtime K tensor (`k_ptr`, int64) must
 * agree. Results are sorted (largest or smallest first); equal values keep the lower
 * index first, as ONNX specifies. */
typedef struct {
  uint32_t outer, axis, inner, k;
  uint32_t largest;
} kiln_topk_params_t;

#define KILN_DECLARE_TOPK(suffix, T)                                                                 \
  kiln_status_t kiln_topk_##suffix(const kiln_topk_params_t* p, const T* in, const int64_t* k_ptr, T* values, \
                                   int64_t* indices);
KILN_DECLARE_TOPK(f32, float)
KILN_DECLARE_TOPK(f64, double)
KILN_DECLARE_TOPK(i8, int8_t)
KILN_DECLARE_TOPK(u8, uint8_t)
KILN_DECLARE_TOPK(i16, int16_t)
KILN_DECLARE_TOPK(u16, uint16_t)
KILN_DECLARE_TOPK(i32, int32_t)
KILN_DECLARE_TOPK(u32, uint32_t)
KILN_DECLARE_TOPK(i64, int64_t)
KILN_DECLARE_TOPK(u64, uint64_t)
#undef KILN_DECLARE_TOPK

/* ---- LogSoftmax / Hardmax over `axis` of [outer, axis, inner] (allow out == in) ---- */
kiln_status_t kiln_logsoftmax_f32(const kiln_softmax_params_t* p, const float* in, float* out);
kiln_status_t kiln_hardmax_f32(const kiln_softmax_params_t* p, const float* in, float* out);

#ifdef __cplusplus
}
#endif

#endif /* KILN_REDUCE_H */
