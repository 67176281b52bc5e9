// The window geometry shared by Conv and the pooling ops: kernel, strides,
// dilations and pads (explicit or auto_pad) for 1-D (h = 1) and 2-D inputs.
#pragma once

#include <cstdint>

#include "ir/graph.h"

namespace kiln {

struct SpatialGeometry {
  int64_t h_in = 1, w_in = 1, h_out = 1, w_out = 1;
  int64_t k_h = 1, k_w = 1, stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
};

// `x`, `y`: NC[H]W shapes; `w`: the weights (OI[H]W) when weights_give_kernel,
// else the kernel comes from the kernel_shape attribute. Output sizes are those of
// `y` (from shape inference), checked against the attributes. Throws naming the node.
SpatialGeometry spatial_geometry(const Node& n, const Shape& x, const Shape& w, const Shape& y,
                                 bool weights_give_kernel);

}  // namespace kiln
