// ConvTranspose (1-D, 2-D and 3-D; groups, dilations, pads, output_padding,
// output_shape, auto_pad) -> kiln_conv_transpose_f32.
//
// The kernel scatters every input element through the kernel taps and drops taps
// outside the output, so only the leading pad matters here; the output size is the
// one shape inference gave (it already accounts for output_padding/output_shape).
#include <algorithm>

#include "lower/lower_util.h"
#include "lower/ops/ops.h"
#include "lower/spatial.h"
#include "util/error.h"
#include "util/quoted.h"

namespace kiln {

namespace {

KernelCall lower_conv_transpose(const Node& n) {
  require_float32(n);
  const Value* x = n.input(0);
  const Value* w = n.input(1);
  const Value* y = n.outputs.at(0);
  if (!x || !w) throw CompileError(n.describe() + ": needs X and W");
  check_fits_32bit(n, x->shape);
  check_fits_32bit(n, y->shape);
  const size_t rank = x->shape.size();
  if (rank < 3 || rank > 5)
    throw CompileError(n.describe() + ": only 1-D, 2-D and 3-D transposed convolutions are supported");
  if (w->shape.size() != rank || y->shape.size() != rank)
    throw CompileError(n.describe() + ": weights " + shape_str(w->shape) + " / output do not match the input rank");
  const size_t sd = rank - 2;
  const int64_t groups = n.attr_int("group", 1);
  const int64_t c_in = x->shape[1], c_out = y->shape[1];
  if (groups <= 0 || c_in % groups != 0 || w->shape[0] != c_in || w->shape[1] * groups != c_out)
    throw CompileError(n.describe() + ": group=" + std::to_string(groups) + " does not match input channels " +
                       std::to_string(c_in) + ", weights " + shape_str(w->shape) + " and output " +
                       shape_str(y->shape));
  require_per_channel(n, n.input(2), c_out, "bias");
  std::vector<int64_t> kernel(w->shape.begin() + 2, w->shape.end());
  if (n.has_attr("kernel_shape") && n.attr_ints("kernel_shape") != kernel)
    throw CompileError(n.describe() + ": kernel_shape does not match the weights");
  auto strides = n.attr_ints("strides", std::vector<int64_t>(sd, 1));
  auto dil = n.attr_ints("dilations", std::vector<int64_t>(sd, 1));
  auto pads = n.attr_ints("pads", std::vector<int64_t>(2 * sd, 0));
  auto out_pad = n.attr_ints("output_padding", std::vector<int64_t>(sd, 0));
  if (strides.size() != sd || dil.size() != sd || pads.size() != 2 * sd || out_pad.size() != sd)
    throw CompileError(n.describe() + ": strides/dilations/pads/output_padding do not match the spatial rank");
  const std::string auto_pad = n.attr_string("auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER" && auto_pad != "VALID")
    throw CompileError(n.describe() + ": auto_pad " + in_quotes(auto_pad) + " is not valid");
  const bool derive_pads = n.has_attr("output_shape") || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER";

  SpatialGeometry g;
  g.rank = sd;
  const size_t off = 3 - sd;
  for (size_t i = 0; i < sd; ++i) {
    if (strides[i] <= 0 || dil[i] <= 0 || kernel[i] <= 0 || pads[i] < 0 || pads[i + sd] < 0)
      throw CompileError(n.describe() + ": kernel, strides and dilations must be positive, pads non-negative");
    const int64_t in = x->shape[2 + i], out = y->shape[2 + i];
    int64_t begin = pads[i];
    if (auto_pad == "VALID") begin = 0;
    if (derive_pads) {
      // The padding that crops the full transposed output down to `out`, split as
      // ONNX specifies: the start gets total/2 for SAME_UPPER, total - total/2
      // otherwise. A negative total (output_shape larger than the full output)
      // only extends the end.
      const int64_t full = strides[i] * (in - 1) + out_pad[i] + (kernel[i] - 1) * dil[i] + 1;
      const int64_t total = full - out;
      begin = total <= 0 ? 0 : auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
    }
    // The kernel scatters input position i to i * stride + k * dilation - begin.
    check_window_reach(n, out, in, kernel[i], strides[i], dil[i], begin, 0);
    g.in[off + i] = in;
    g.out[off + i] = out;
    g.kernel[off + i] = kernel[i];
    g.stride[off + i] = strides[i];
    g.dilation[off + i] = dil[i];
    g.pad_begin[off + i] = begin;
  }
  KernelCall k;
  k.params_type = "kiln_conv2d_params_t";
  k.params_init = conv_params_init(x->shape[0], c_in, c_out, g, groups, 0).str();
  k.call = std::string("kiln_conv_transpose_f32(&$params, $in0, $in1, ") + (n.input(2) ? "$in2" : "NULL") + ", $out0)";
  return k;
}

}  // namespace

void register_conv_transpose_lowerings() { register_lowering("ConvTranspose", lower_conv_transpose); }

}  // namespace kiln
