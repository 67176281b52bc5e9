// Conv (1-D and 2-D, groups, dilations, pads, auto_pad) -> kiln_conv2d_f32.
#include <algorithm>

#include "lower/lower_util.h"
#include "lower/ops/ops.h"
#include "lower/spatial.h"
#include "util/error.h"

namespace kiln {

namespace {

// Largest im2col scratch Kiln plans for one convolution, unless a single output row
// needs more: tiles of output rows keep intra-operator memory small.
constexpr uint64_t kIm2colBudgetBytes = 8192;

KernelCall lower_conv(const Node& n) {
  require_float32(n);
  const Value* x = n.input(0);
  const Value* w = n.input(1);
  const Value* y = n.outputs.at(0);
  if (!x || !w) throw CompileError(n.describe() + ": needs X and W");
  const size_t rank = x->shape.size();
  if (rank != 3 && rank != 4)
    throw CompileError(n.describe() + ": only 1-D and 2-D convolutions are supported (input rank " +
                       std::to_string(rank) + ")");
  check_fits_32bit(n, x->shape);
  check_fits_32bit(n, y->shape);
  SpatialGeometry g = spatial_geometry(n, x->shape, w->shape, y->shape, /*weights_give_kernel=*/true);
  const int64_t groups = n.attr_int("group", 1);
  const int64_t c_in = x->shape[1], c_out = w->shape[0];
  if (groups <= 0 || c_in % groups != 0 || c_out % groups != 0 || w->shape[1] != c_in / groups)
    throw CompileError(n.describe() + ": group=" + std::to_string(groups) + " does not match input channels " +
                       std::to_string(c_in) + " and weights " + shape_str(w->shape));

  const int64_t cin_g = c_in / groups;
  const bool pointwise = g.k_h == 1 && g.k_w == 1 && g.stride_h == 1 && g.stride_w == 1 && g.pad_top == 0 &&
                         g.pad_left == 0 && g.h_in == g.h_out && g.w_in == g.w_out;
  const bool depthwise = cin_g == 1;
  int64_t tile_rows = 0;
  KernelCall k;
  if (!pointwise && !depthwise) {
    const uint64_t row_bytes = uint64_t(cin_g * g.k_h * g.k_w * g.w_out) * sizeof(float);
    tile_rows = std::clamp<int64_t>(int64_t(kIm2colBudgetBytes / std::max<uint64_t>(row_bytes, 1)), 1, g.h_out);
    k.scratch.push_back({"im2col", row_bytes * uint64_t(tile_rows), 4});
  }
  k.params_type = "kiln_conv2d_params_t";
  k.params_init = ParamsInit()
                      .u("n", x->shape[0]).u("c_in", c_in).u("h_in", g.h_in).u("w_in", g.w_in)
                      .u("c_out", c_out).u("h_out", g.h_out).u("w_out", g.w_out)
                      .u("k_h", g.k_h).u("k_w", g.k_w)
                      .u("stride_h", g.stride_h).u("stride_w", g.stride_w)
                      .u("dilation_h", g.dilation_h).u("dilation_w", g.dilation_w)
                      .i("pad_top", g.pad_top).i("pad_left", g.pad_left)
                      .u("groups", groups).u("tile_rows", tile_rows)
                      .str();
  k.call = std::string("kiln_conv2d_f32(&$params, $in0, $in1, ") + (n.input(2) ? "$in2" : "NULL") + ", $out0, " +
           (k.scratch.empty() ? "NULL" : "$scratch0") + ")";
  return k;
}

}  // namespace

void register_conv_lowerings() { register_lowering("Conv", lower_conv); }

}  // namespace kiln
