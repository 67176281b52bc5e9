// Conv (1-D, 2-D and 3-D; groups, dilations, pads, auto_pad) -> kiln_conv2d_f32.
#include <algorithm>

#include "lower/lower_util.h"
#include "lower/ops/f32_packing.h"
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
  check_fits_32bit(n, x->shape);
  check_fits_32bit(n, y->shape);
  SpatialGeometry g = spatial_geometry(n, x->shape, w->shape, y->shape, /*weights_give_kernel=*/true);
  const int64_t groups = n.attr_int("group", 1);
  const int64_t c_in = x->shape[1], c_out = w->shape[0];
  if (groups <= 0 || c_in % groups != 0 || c_out % groups != 0 || w->shape[1] != c_in / groups)
    throw CompileError(n.describe() + ": group=" + std::to_string(groups) + " does not match input channels " +
                       std::to_string(c_in) + " and weights " + shape_str(w->shape));
  require_per_channel(n, n.input(2), c_out, "bias");

  const int64_t cin_g = c_in / groups, cout_g = c_out / groups;
  bool pointwise = true;
  for (size_t a = 0; a < 3; ++a)
    pointwise = pointwise && g.kernel[a] == 1 && g.stride[a] == 1 && g.pad_begin[a] == 0 && g.in[a] == g.out[a];
  // One input channel per group (depthwise, or a single-channel input): the direct
  // loop, unless the depthwise 3x3 kernel takes it. A single-channel input with one
  // group (the first layer of an audio model) goes through im2col like any other.
  const bool depthwise = cin_g == 1 && groups > 1;
  const Value* bias = n.input(2);
  const bool const_weights = w->is_constant() && (!bias || bias->is_constant());
  const bool depthwise3x3 = depthwise && cout_g == 1 && const_weights && g.out[0] == 1 && g.in[0] == 1 &&
                            g.kernel[0] == 1 && g.kernel[1] == 3 && g.kernel[2] == 3 && g.stride[1] == g.stride[2] &&
                            (g.stride[2] == 1 || g.stride[2] == 2) && g.dilation[1] == 1 && g.dilation[2] == 1 &&
                            g.pad_begin[1] >= 0 && g.pad_begin[1] <= 1 && g.pad_begin[2] >= 0 && g.pad_begin[2] <= 1;
  int64_t tile_rows = 0;
  KernelCall k;
  if (!pointwise && !depthwise) {
    // A "row" is one (depth, height) output position: w_out columns of patches.
    const int64_t rows = g.out[0] * g.out[1];
    const uint64_t row_bytes = uint64_t(cin_g * g.kernel[0] * g.kernel[1] * g.kernel[2] * g.out[2]) * sizeof(float);
    tile_rows = std::clamp<int64_t>(int64_t(kIm2colBudgetBytes / std::max<uint64_t>(row_bytes, 1)), 1,
                                    std::max<int64_t>(rows, 1));
    k.scratch.push_back({"im2col", row_bytes * uint64_t(tile_rows), 4});
  }
  // Constant weights are re-laid out for the register-blocked kernels (crt/src/kernels/gemm_tiles_f32.h, depthwise3x3_f32.h).
  const char* layout = "KILN_CONV_WEIGHTS_OIHW";
  std::string weights = "$in1", bias_arg = bias ? "$in2" : "NULL";
  if (depthwise3x3) {
    layout = "KILN_CONV_WEIGHTS_DEPTHWISE_3X3";
    k.constants.push_back(pack_f32_depthwise3x3(*w->constant, bias ? bias->constant.get() : nullptr, c_out));
    k.unread_inputs = bias ? std::vector<int>{1, 2} : std::vector<int>{1};
    weights = "$const0";
    bias_arg = "NULL";
    const uint64_t row_len = uint64_t((g.out[2] - 1) * g.stride[2] + 3);
    k.scratch.push_back({"padded_rows", 3 * row_len * sizeof(float), 4});
  } else if (!depthwise && w->is_constant()) {
    layout = "KILN_CONV_WEIGHTS_GEMM_BLOCKS";
    k.constants.push_back(pack_f32_gemm_blocks(*w->constant, groups, cout_g, cin_g * g.kernel[0] * g.kernel[1] * g.kernel[2]));
    k.unread_inputs.push_back(1);
    weights = "$const0";
  }
  k.params_type = "kiln_conv2d_params_t";
  k.params_init = conv_params_init(x->shape[0], c_in, c_out, g, groups, tile_rows).raw("weights_layout", layout).str();
  k.call = "kiln_conv2d_f32(&$params, $in0, " + weights + ", " + bias_arg + ", $out0, " +
           (k.scratch.empty() ? "NULL" : "$scratch0") + ")";
  return k;
}

}  // namespace

void register_conv_lowerings() {
  register_lowering("Conv", lower_conv);
}

}  // namespace kiln
