// ConvInteger and QLinearConv (1-D, 2-D and 3-D, groups, dilations, pads,
// auto_pad) -> kiln_conv_integer_s32 / kiln_qlinear_conv. Exact int32 accumulation;
// QLinearConv requantizes with round-half-to-even. Scales and zero points are read
// at run time.
#include "lower/lower_util.h"
#include "lower/ops/ops.h"
#include "lower/spatial.h"
#include "util/error.h"

namespace kiln {

namespace {

bool is_8bit(DType t) { return t == DType::UInt8 || t == DType::Int8; }

// The kiln_conv_integer_params_t initializer for data x, weights w (8-bit), the
// weight zero point (may be null) and output y.
std::string conv_integer_init(const Node& n, const Value* x, const Value* w, const Value* w_zp, const Value* y) {
  if (!is_8bit(x->dtype) || !is_8bit(w->dtype))
    throw CompileError(n.describe() + ": data and weights must be uint8 or int8 (got " + dtype_name(x->dtype) + ", " +
                       dtype_name(w->dtype) + ")");
  check_fits_32bit(n, x->shape);
  check_fits_32bit(n, y->shape);
  SpatialGeometry g = spatial_geometry(n, x->shape, w->shape, y->shape, /*weights_give_kernel=*/true);
  const int64_t groups = n.attr_int("group", 1);
  const int64_t c_in = x->shape[1], c_out = w->shape[0];
  if (groups <= 0 || c_in % groups != 0 || c_out % groups != 0 || w->shape[1] != c_in / groups)
    throw CompileError(n.describe() + ": group=" + std::to_string(groups) + " does not match input channels " +
                       std::to_string(c_in) + " and weights " + shape_str(w->shape));
  // |(x - zp) * (w - zp)| <= 255 * 255 < 2^16: the int32 sum is exact below 2^15 taps.
  if ((c_in / groups) * g.kernel[0] * g.kernel[1] * g.kernel[2] >= (int64_t(1) << 15))
    throw CompileError(n.describe() + ": the kernel has too many taps for an exact int32 accumulator");
  bool per_channel = false;
  if (w_zp) {
    if (w_zp->dtype != w->dtype) throw CompileError(n.describe() + ": weight zero point dtype differs from W");
    const int64_t cnt = shape_elements(w_zp->shape);
    if (cnt != 1 && cnt != c_out)
      throw CompileError(n.describe() + ": weight zero point must have 1 or " + std::to_string(c_out) + " values");
    per_channel = cnt != 1;
  }
  return ParamsInit()
      .raw("geom", conv_params_init(x->shape[0], c_in, c_out, g, groups, 0).str())
      .u("x_signed", x->dtype == DType::Int8)
      .u("w_signed", w->dtype == DType::Int8)
      .u("w_zp_per_channel", per_channel)
      .str();
}

KernelCall lower_conv_integer(const Node& n) {
  const Value *x = n.input(0), *w = n.input(1), *x_zp = n.input(2), *w_zp = n.input(3);
  const Value* y = n.outputs.at(0);
  if (!x || !w) throw CompileError(n.describe() + ": needs x and w");
  require_dtype(n, y, DType::Int32, "output");
  if (x_zp && (x_zp->dtype != x->dtype || shape_elements(x_zp->shape) != 1))
    throw CompileError(n.describe() + ": x_zero_point must be one value of x's dtype");
  KernelCall k;
  k.params_type = "kiln_conv_integer_params_t";
  k.params_init = conv_integer_init(n, x, w, w_zp, y);
  k.call = std::string("kiln_conv_integer_s32(&$params, $in0, ") + (x_zp ? "$in2" : "NULL") + ", $in1, " +
           (w_zp ? "$in3" : "NULL") + ", $out0)";
  return k;
}

KernelCall lower_qlinear_conv(const Node& n) {
  const Value *x = n.input(0), *xs = n.input(1), *xzp = n.input(2), *w = n.input(3), *ws = n.input(4),
              *wzp = n.input(5), *ys = n.input(6), *yzp = n.input(7), *b = n.input(8);
  const Value* y = n.outputs.at(0);
  if (!x || !xs || !xzp || !w || !ws || !wzp || !ys || !yzp)
    throw CompileError(n.describe() + ": needs x, scales and zero points");
  for (const Value* s : {xs, ws, ys}) require_dtype(n, s, DType::Float32, "scale");
  if (xzp->dtype != x->dtype || shape_elements(xzp->shape) != 1 || shape_elements(xs->shape) != 1)
    throw CompileError(n.describe() + ": x_scale and x_zero_point must be single values");
  if (yzp->dtype != y->dtype || shape_elements(yzp->shape) != 1 || shape_elements(ys->shape) != 1)
    throw CompileError(n.describe() + ": y_scale and y_zero_point must be single values of y's dtype");
  if (!is_8bit(y->dtype)) throw CompileError(n.describe() + ": output must be uint8 or int8");
  if (b) require_dtype(n, b, DType::Int32, "bias");
  const int64_t c_out = w->shape.at(0), ws_cnt = shape_elements(ws->shape);
  require_per_channel(n, b, c_out, "bias");
  if (ws_cnt != 1 && ws_cnt != c_out)
    throw CompileError(n.describe() + ": w_scale must have 1 or " + std::to_string(c_out) + " values");
  KernelCall k;
  k.params_type = "kiln_qlinear_conv_params_t";
  k.params_init = ParamsInit()
                      .raw("conv", conv_integer_init(n, x, w, wzp, y))
                      .u("w_scale_per_channel", ws_cnt != 1)
                      .u("y_signed", y->dtype == DType::Int8)
                      .str();
  k.scratch.push_back({"accumulators", uint64_t(shape_elements(y->shape)) * 4u, 4});
  k.call = std::string("kiln_qlinear_conv(&$params, $in0, $in1, $in2, $in3, $in4, $in5, $in6, $in7, ") +
           (b ? "$in8" : "NULL") + ", $out0, $scratch0)";
  return k;
}

}  // namespace

void register_quantized_conv_lowerings() {
  register_lowering("ConvInteger", lower_conv_integer);
  register_lowering("QLinearConv", lower_qlinear_conv);
}

}  // namespace kiln
