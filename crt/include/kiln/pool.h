/* Pooling, NC[D]HW. The output must not alias the input. */
#ifndef KILN_POOL_H
#define KILN_POOL_H

#include "kiln/kernel_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Window pooling over up to three spatial axes (1-D/2-D set the leading axes to
 * size 1, stride/dilation 1). Windows start at -pad; positions outside the input
 * are skipped (max, Lp) or counted only when count_include_pad (average; the window
 * is then clipped to the padded extent, so a ceil_mode window reaching past the end
 * padding does not count those positions). */
typedef struct {
  uint32_t n, c, d_in, h_in, w_in, d_out, h_out, w_out;
  uint32_t k_d, k_h, k_w, stride_d, stride_h, stride_w, dilation_d, dilation_h, dilation_w;
  int32_t pad_front, pad_top, pad_left, pad_back, pad_bottom, pad_right;
  uint8_t count_include_pad;
  uint8_t storage_order; /* MaxPool Indices: 0 row-major, 1 column-major spatial index */
  float p;               /* LpPool exponent */
} kiln_pool2d_params_t;

/* MaxPool; `indices` (may be NULL) receives the flat index of each maximum into the
 * input tensor (ONNX's Indices output). A window with no input position gives the
 * type's lowest value and index -1. NaN propagates (float). */
kiln_status_t kiln_maxpool2d_f32(const kiln_pool2d_params_t* p, const float* in, float* out, int64_t* indices);
kiln_status_t kiln_maxpool2d_f64(const kiln_pool2d_params_t* p, const double* in, double* out, int64_t* indices);
kiln_status_t kiln_maxpool2d_i8(const kiln_pool2d_params_t* p, const int8_t* in, int8_t* out, int64_t* indices);
kiln_status_t kiln_maxpool2d_u8(const kiln_pool2d_params_t* p, const uint8_t* in, uint8_t* out, int64_t* indices);
kiln_status_t kiln_avgpool2d_f32(const kiln_pool2d_params_t* p, const float* in, float* out);
/* LpPool: (sum |x|^p)^(1/p) over the in-input positions of each window. */
kiln_status_t kiln_lppool2d_f32(const kiln_pool2d_params_t* p, const float* in, float* out);

/* Global pooling: `channels` (N*C) planes of `size` elements each. */
typedef struct {
  uint32_t channels, size;
  float p; /* GlobalLpPool exponent */
} kiln_global_pool_params_t;
kiln_status_t kiln_global_avgpool_f32(const kiln_global_pool_params_t* p, const float* in, float* out);
kiln_status_t kiln_global_maxpool_f32(const kiln_global_pool_params_t* p, const float* in, float* out);
kiln_status_t kiln_global_lppool_f32(const kiln_global_pool_params_t* p, const float* in, float* out);

/* MaxUnpool: out is zero except at the positions indices[i] names, which get x[i].
 * Indices are flat over `unpooled_shape` (the shape MaxPool's input had: as computed
 * from kernel/strides/pads); an explicit output_shape may be larger, and the
 * position keeps its coordinates in `out_shape` (the extra elements are at the
 * end of each axis). Out-of-range indices are an error. */
typedef struct {
  uint32_t in_size, ndim;
  int32_t unpooled_shape[KILN_MAX_DIMS];
  int32_t out_shape[KILN_MAX_DIMS];
} kiln_max_unpool_params_t;
kiln_status_t kiln_max_unpool_f32(const kiln_max_unpool_params_t* p, const float* in, const int64_t* indices,
                                  float* out);

#ifdef __cplusplus
}
#endif

#endif /* KILN_POOL_H */
