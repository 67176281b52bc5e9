#include "lower/spatial.h"

#include <algorithm>

#include "util/checked_math.h"
#include "util/error.h"
#include "util/quoted.h"

namespace kiln {

void check_window_reach(const Node& n, int64_t in, int64_t out, int64_t kernel, int64_t stride, int64_t dilation,
                        int64_t pad_begin, int64_t pad_end) {
  const std::string what = n.describe() + ": window geometry";
  const int64_t reach = checked_add(checked_mul(std::max<int64_t>(out - 1, 0), stride, what),
                                    checked_mul(kernel - 1, dilation, what), what);
  const int64_t padded = checked_add(checked_add(in, pad_begin, what), pad_end, what);
  constexpr int64_t kLimit = INT32_MAX;
  if (reach > kLimit || padded > kLimit)
    throw CompileError(n.describe() + ": a window reaches " + std::to_string(std::max(reach, padded)) +
                       " positions along one axis (kernel " + std::to_string(kernel) + ", stride " +
                       std::to_string(stride) + ", dilation " + std::to_string(dilation) + ", pads " +
                       std::to_string(pad_begin) + "+" + std::to_string(pad_end) +
                       "), past the 2^31 the kernels index with");
}

SpatialGeometry spatial_geometry(const Node& n, const Shape& x, const Shape& w, const Shape& y,
                                 bool weights_give_kernel, bool allow_partial_windows) {
  const size_t rank = x.size();
  if (rank < 3 || rank > 5)
    throw CompileError(n.describe() + ": only 1-D, 2-D and 3-D windows are supported (input rank " +
                       std::to_string(rank) + ")");
  const size_t sd = rank - 2;  // spatial dims
  if (y.size() != rank) throw CompileError(n.describe() + ": output rank differs from input rank");
  std::vector<int64_t> kernel;
  if (weights_give_kernel) {
    if (w.size() != rank) throw CompileError(n.describe() + ": weights " + shape_str(w) + " do not match the input rank");
    kernel.assign(w.begin() + 2, w.end());
    if (n.has_attr("kernel_shape") && n.attr_ints("kernel_shape") != kernel)
      throw CompileError(n.describe() + ": kernel_shape does not match the weights");
  } else {
    kernel = n.attr_ints("kernel_shape");
  }
  if (kernel.size() != sd) throw CompileError(n.describe() + ": kernel_shape must have " + std::to_string(sd) + " values");
  auto strides = n.attr_ints("strides", std::vector<int64_t>(sd, 1));
  auto dil = n.attr_ints("dilations", std::vector<int64_t>(sd, 1));
  auto pads = n.attr_ints("pads", std::vector<int64_t>(2 * sd, 0));
  if (strides.size() != sd || dil.size() != sd || pads.size() != 2 * sd)
    throw CompileError(n.describe() + ": strides/dilations/pads do not match the spatial rank");
  for (size_t i = 0; i < sd; ++i)
    if (strides[i] <= 0 || dil[i] <= 0 || kernel[i] <= 0 || pads[i] < 0 || pads[i + sd] < 0)
      throw CompileError(n.describe() + ": kernel, strides and dilations must be positive, pads non-negative");

  const std::string auto_pad = n.attr_string("auto_pad", "NOTSET");
  SpatialGeometry g;
  g.rank = sd;
  const size_t off = 3 - sd;  // 1-D/2-D fill the trailing axes
  for (size_t i = 0; i < sd; ++i) {
    const int64_t in = x[2 + i], out = y[2 + i];
    const int64_t ext = (kernel[i] - 1) * dil[i] + 1;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      // The extra pad of an odd total goes at the end (UPPER) or the start (LOWER).
      const int64_t total = std::max<int64_t>(0, (out - 1) * strides[i] + ext - in);
      const int64_t small = total / 2, big = total - small;
      pads[i] = auto_pad == "SAME_UPPER" ? small : big;
      pads[i + sd] = auto_pad == "SAME_UPPER" ? big : small;
    } else if (auto_pad == "VALID") {
      pads[i] = pads[i + sd] = 0;
    } else if (auto_pad != "NOTSET") {
      throw CompileError(n.describe() + ": auto_pad " + in_quotes(auto_pad) + " is not valid");
    }
    // Every output position must start inside the padded input (ceil_mode pooling
    // may add one last window that starts in the end padding).
    if (!allow_partial_windows && out > 0 && (out - 1) * strides[i] >= in + pads[i] + pads[i + sd])
      throw CompileError(n.describe() + ": output size " + std::to_string(out) + " does not fit the input");
    check_window_reach(n, in, out, kernel[i], strides[i], dil[i], pads[i], pads[i + sd]);
    g.in[off + i] = in;
    g.out[off + i] = out;
    g.kernel[off + i] = kernel[i];
    g.stride[off + i] = strides[i];
    g.dilation[off + i] = dil[i];
    g.pad_begin[off + i] = pads[i];
    g.pad_end[off + i] = pads[i + sd];
  }
  return g;
}

ParamsInit conv_params_init(int64_t n, int64_t c_in, int64_t c_out, const SpatialGeometry& g, int64_t groups,
                            int64_t tile_rows) {
  ParamsInit p;
  p.u("n", n).u("c_in", c_in).u("d_in", g.in[0]).u("h_in", g.in[1]).u("w_in", g.in[2]);
  p.u("c_out", c_out).u("d_out", g.out[0]).u("h_out", g.out[1]).u("w_out", g.out[2]);
  p.u("k_d", g.kernel[0]).u("k_h", g.kernel[1]).u("k_w", g.kernel[2]);
  p.u("stride_d", g.stride[0]).u("stride_h", g.stride[1]).u("stride_w", g.stride[2]);
  p.u("dilation_d", g.dilation[0]).u("dilation_h", g.dilation[1]).u("dilation_w", g.dilation[2]);
  p.i("pad_front", g.pad_begin[0]).i("pad_top", g.pad_begin[1]).i("pad_left", g.pad_begin[2]);
  p.u("groups", groups).u("tile_rows", tile_rows);
  return p;
}

ParamsInit pool_params_init(int64_t n, int64_t c, const SpatialGeometry& g) {
  ParamsInit p;
  p.u("n", n).u("c", c);
  p.u("d_in", g.in[0]).u("h_in", g.in[1]).u("w_in", g.in[2]);
  p.u("d_out", g.out[0]).u("h_out", g.out[1]).u("w_out", g.out[2]);
  p.u("k_d", g.kernel[0]).u("k_h", g.kernel[1]).u("k_w", g.kernel[2]);
  p.u("stride_d", g.stride[0]).u("stride_h", g.stride[1]).u("stride_w", g.stride[2]);
  p.u("dilation_d", g.dilation[0]).u("dilation_h", g.dilation[1]).u("dilation_w", g.dilation[2]);
  p.i("pad_front", g.pad_begin[0]).i("pad_top", g.pad_begin[1]).i("pad_left", g.pad_begin[2]);
  p.i("pad_back", g.pad_end[0]).i("pad_bottom", g.pad_end[1]).i("pad_right", g.pad_end[2]);
  return p;
}

}  // namespace kiln
