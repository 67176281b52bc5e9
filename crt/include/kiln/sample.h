/* Sampling at fractional positions given by a tensor: GridSample (4-D, NCHW) and
 * RoiAlign. float32; outputs must not alias inputs. */
#ifndef KILN_SAMPLE_H
#define KILN_SAMPLE_H

#include "kiln/kernel_common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { KILN_GRID_BILINEAR = 0, KILN_GRID_NEAREST = 1, KILN_GRID_BICUBIC = 2 } kiln_grid_mode_t;
typedef enum { KILN_GRID_ZEROS = 0, KILN_GRID_BORDER = 1, KILN_GRID_REFLECTION = 2 } kiln_grid_padding_t;

/* GridSample: x [n, c, h_in, w_in], grid [n, h_out, w_out, 2] holding normalized
 * (x, y) in [-1, 1] -> out [n, c, h_out, w_out]. Nearest rounds half to even;
 * bicubic uses A = -0.75 (as PyTorch and the ONNX reference). */
typedef struct {
  uint32_t n, c, h_in, w_in, h_out, w_out;
  uint32_t mode;          /* kiln_grid_mode_t */
  uint32_t padding_mode;  /* kiln_grid_padding_t */
  uint32_t align_corners; /* 0 or 1 */
} kiln_grid_sample_params_t;
kiln_status_t kiln_grid_sample_f32(const kiln_grid_sample_params_t* p, const float* x, const float* grid,
                                   float* out);

/* RoiAlign: x [n, c, h, w], rois [num_rois, 4] as (x1, y1, x2, y2), batch_indices
 * [num_rois] -> out [num_rois, c, out_h, out_w]. Each bin averages (or takes the max
 * of) sampling_ratio^2 bilinear samples; sampling_ratio 0 means ceil(roi size / bins).
 * A batch index out of range returns KILN_ERR_BAD_ARGUMENT. */
typedef struct {
  uint32_t n, c, h, w, num_rois, out_h, out_w;
  uint32_t sampling_ratio;
  float spatial_scale;
  uint32_t half_pixel; /* coordinate_transformation_mode: 1 half_pixel, 0 output_half_pixel */
  uint32_t max_mode;   /* 0 avg, 1 max */
} kiln_roi_align_params_t;
kiln_status_t kiln_roi_align_f32(const kiln_roi_align_params_t* p, const float* x, const float* rois,
                                 const int64_t* batch_indices, float* out);

#ifdef __cplusplus
}
#endif

#endif /* KILN_SAMPLE_H */
