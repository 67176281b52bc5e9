// The window geometry shared by Conv, ConvTranspose and the pooling ops: kernel,
// strides, dilations and pads (explicit or auto_pad) for 1-D, 2-D and 3-D inputs.
// Geometry is always expressed with three spatial axes (depth, height, width);
// a 1-D or 2-D input has leading axes of size 1, so one kernel serves all ranks.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "ir/graph.h"
#include "lower/lower_util.h"

namespace kiln {

struct SpatialGeometry {
  size_t rank = 0;  // spatial rank of the ONNX tensors (1..3)
  // Index 0 = depth, 1 = height, 2 = width.
  std::array<int64_t, 3> in{1, 1, 1}, out{1, 1, 1}, kernel{1, 1, 1}, stride{1, 1, 1}, dilation{1, 1, 1};
  std::array<int64_t, 3> pad_begin{0, 0, 0}, pad_end{0, 0, 0};
};

// The kernels find a window's input position in 32-bit arithmetic
// (o * stride + k * dilation - pad_begin), so along one axis the farthest tap,
// (out - 1) * stride + (kernel - 1) * dilation, the pads and the padded input must
// stay below 2^31. Past that (a dilation of 2^31 - 1 with SAME padding, pads of
// 2^30 on both sides) the C would wrap and read outside the input: a CompileError.
void check_window_reach(const Node& n, int64_t in, int64_t out, int64_t kernel, int64_t stride, int64_t dilation,
                        int64_t pad_begin, int64_t pad_end);

// `x`, `y`: NC + spatial shapes; `w`: the weights (O I spatial...) when
// weights_give_kernel, else the kernel comes from the kernel_shape attribute.
// Output sizes are those of `y` (from shape inference), checked against the
// attributes. `allow_partial_windows`: ceil_mode pooling, where the last window may
// start past the padded input. Throws naming the node.
SpatialGeometry spatial_geometry(const Node& n, const Shape& x, const Shape& w, const Shape& y,
                                 bool weights_give_kernel, bool allow_partial_windows = false);

// The kiln_conv2d_params_t fields (shared by Conv, ConvTranspose, ConvInteger and
// QLinearConv): batch, channels, the three-axis geometry, groups, tile_rows.
ParamsInit conv_params_init(int64_t n, int64_t c_in, int64_t c_out, const SpatialGeometry& g, int64_t groups,
                            int64_t tile_rows);
// The kiln_pool2d_params_t window fields (without count_include_pad / storage_order / p).
ParamsInit pool_params_init(int64_t n, int64_t c, const SpatialGeometry& g);

}  // namespace kiln
