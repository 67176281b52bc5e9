#include "lower/spatial.h"

#include "util/error.h"

namespace kiln {

SpatialGeometry spatial_geometry(const Node& n, const Shape& x, const Shape& w, const Shape& y,
                                 bool weights_give_kernel) {
  const size_t rank = x.size();
  if (rank != 3 && rank != 4)
    throw CompileError(n.describe() + ": only 1-D and 2-D windows are supported (input rank " + std::to_string(rank) +
                       ")");
  const size_t sd = rank - 2;  // spatial dims
  if (y.size() != rank) throw CompileError(n.describe() + ": output rank differs from input rank");
  std::vector<int64_t> kernel;
  if (weights_give_kernel) {
    if (w.size() != rank) throw CompileError(n.describe() + ": weights " + shape_str(w) + " do not match the input rank");
    kernel.assign(w.begin() + 2, w.end());
  } else {
    kernel = n.attr_ints("kernel_shape");
  }
  if (n.has_attr("kernel_shape") && n.attr_ints("kernel_shape") != kernel)
    throw CompileError(n.describe() + ": kernel_shape does not match the weights");
  if (kernel.size() != sd) throw CompileError(n.describe() + ": kernel_shape must have " + std::to_string(sd) + " values");
  auto strides = n.attr_ints("strides", std::vector<int64_t>(sd, 1));
  auto dil = n.attr_ints("dilations", std::vector<int64_t>(sd, 1));
  auto pads = n.attr_ints("pads", std::vector<int64_t>(2 * sd, 0));
  if (strides.size() != sd || dil.size() != sd || pads.size() != 2 * sd)
    throw CompileError(n.describe() + ": strides/dilations/pads do not match the spatial rank");
  for (size_t i = 0; i < sd; ++i)
    if (strides[i] <= 0 || dil[i] <= 0 || kernel[i] <= 0 || pads[i] < 0 || pads[i + sd] < 0)
      throw CompileError(n.describe() + ": kernel, strides and dilations must be positive, pads non-negative");

  std::string auto_pad = n.attr_string("auto_pad", "NOTSET");
  for (size_t i = 0; i < sd; ++i) {
    int64_t in = x[2 + i], out = y[2 + i];
    int64_t ext = (kernel[i] - 1) * dil[i] + 1;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      int64_t total = std::max<int64_t>(0, (out - 1) * strides[i] + ext - in);
      int64_t small = total / 2, big = total - small;
      pads[i] = auto_pad == "SAME_UPPER" ? small : big;
      pads[i + sd] = auto_pad == "SAME_UPPER" ? big : small;
    } else if (auto_pad == "VALID") {
      pads[i] = pads[i + sd] = 0;
    } else if (auto_pad != "NOTSET") {
      throw CompileError(n.describe() + ": auto_pad '" + auto_pad + "' is not valid");
    }
    // Every output position must start inside the padded input.
    if (out > 0 && (out - 1) * strides[i] >= in + pads[i] + pads[i + sd])
      throw CompileError(n.describe() + ": output size " + std::to_string(out) + " does not fit the input");
  }
  SpatialGeometry g;
  if (sd == 2) {
    g.h_in = x[2], g.w_in = x[3], g.h_out = y[2], g.w_out = y[3];
    g.k_h = kernel[0], g.k_w = kernel[1];
    g.stride_h = strides[0], g.stride_w = strides[1];
    g.dilation_h = dil[0], g.dilation_w = dil[1];
    g.pad_top = pads[0], g.pad_left = pads[1], g.pad_bottom = pads[2], g.pad_right = pads[3];
  } else {
    g.w_in = x[2], g.w_out = y[2];
    g.k_w = kernel[0], g.stride_w = strides[0], g.dilation_w = dil[0];
    g.pad_left = pads[0], g.pad_right = pads[1];
  }
  return g;
}

}  // namespace kiln
