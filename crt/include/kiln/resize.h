/* Resize (and Upsample): nearest, linear and cubic interpolation over any axes.
 * The output must not alias the input. */
#ifndef KILN_RESIZE_H
#define KILN_RESIZE_H

#include "kiln/kernel_common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { KILN_RESIZE_NEAREST = 0, KILN_RESIZE_LINEAR = 1, KILN_RESIZE_CUBIC = 2 } kiln_resize_mode_t;

typedef enum {
  KILN_COORD_HALF_PIXEL = 0,
  KILN_COORD_PYTORCH_HALF_PIXEL = 1,
  KILN_COORD_ALIGN_CORNERS = 2,
  KILN_COORD_ASYMMETRIC = 3,
  KILN_COORD_TF_HALF_PIXEL_FOR_NN = 4,
  KILN_COORD_TF_CROP_AND_RESIZE = 5
} kiln_coord_mode_t;

typedef enum {
  KILN_NEAREST_ROUND_PREFER_FLOOR = 0,
  KILN_NEAREST_ROUND_PREFER_CEIL = 1,
  KILN_NEAREST_FLOOR = 2,
  KILN_NEAREST_CEIL = 3
} kiln_nearest_mode_t;

/*
 * Every output coordinate maps back to an input coordinate per axis (ONNX's
 * coordinate_transformation_mode, with the axis's scale); the output element is the
 * separable nearest/linear/cubic interpolation there. Neighbours outside the input
 * are clamped to the edge, or dropped and the weights renormalized when
 * exclude_outside. tf_crop_and_resize gives extrapolation_value outside the input.
 * `scales` (rank floats, may be NULL: then scale = out / in per axis) and `roi`
 * (2 * rank floats, start then end; needed only by tf_crop_and_resize) are read at
 * run time, so they may be model inputs; the output shape is fixed at compile time.
 * Scales known at compile time live in the params (`const_scales`) and the call
 * passes that array.
 */
typedef struct {
  uint32_t rank;
  int32_t in_shape[KILN_MAX_DIMS];
  int32_t out_shape[KILN_MAX_DIMS];
  kiln_resize_mode_t mode;
  kiln_coord_mode_t coord;
  kiln_nearest_mode_t nearest;
  float cubic_a;
  uint8_t exclude_outside;
  float extrapolation_value;
  float const_scales[KILN_MAX_DIMS];
} kiln_resize_params_t;
kiln_status_t kiln_resize_f32(const kiln_resize_params_t* p, const float* in, const float* roi, const float* scales,
                              float* out);

#ifdef __cplusplus
}
#endif

#endif /* KILN_RESIZE_H */
