// QuantizeLinear, DequantizeLinear (per tensor and per axis) and
// DynamicQuantizeLinear -> kiln_quantize_linear_f32 / kiln_dequantize_linear_f32 /
// kiln_dynamic_quantize_linear_f32. Scales and zero points are read at run time,
// so they may be model inputs; only their shapes must be static.
#include "lower/lower_util.h"
#include "lower/ops/ops.h"
#include "util/error.h"

namespace kiln {

namespace {

std::string qtype_enum(const Node& n, DType t) {
  switch (t) {
    case DType::UInt8: return "KILN_Q_U8";
    case DType::Int8: return "KILN_Q_I8";
    case DType::Int32: return "KILN_Q_I32";
    default:
      throw CompileError(n.describe() + ": quantized type " + dtype_name(t) + " is not supported (uint8, int8, int32)");
  }
}

// [outer, axis_size, inner] of `data` for a scale of shape `scale`: per tensor when
// the scale has one element, else per axis (`axis` attribute, default 1).
std::string quant_layout(const Node& n, const Shape& data, const Shape& scale, DType qtype) {
  check_fits_32bit(n, data);
  const int64_t total = shape_elements(data);
  ParamsInit p;
  if (shape_elements(scale) == 1 && scale.size() <= 1) {
    p.u("outer", 1).u("axis_size", 1).u("inner", total).u("per_axis", 0);
  } else {
    if (scale.size() != 1)
      throw CompileError(n.describe() + ": scale " + shape_str(scale) + " must be a scalar or 1-D");
    const int64_t axis = normalize_axis(n, n.attr_int("axis", 1), int64_t(data.size()));
    if (data[size_t(axis)] != scale[0])
      throw CompileError(n.describe() + ": scale " + shape_str(scale) + " does not match axis " +
                         std::to_string(axis) + " of " + shape_str(data));
    int64_t outer = 1, inner = 1;
    for (size_t d = 0; d < data.size(); ++d) {
      if (int64_t(d) < axis) outer *= data[d];
      if (int64_t(d) > axis) inner *= data[d];
    }
    p.u("outer", outer).u("axis_size", data[size_t(axis)]).u("inner", inner).u("per_axis", 1);
  }
  p.raw("qtype", qtype_enum(n, qtype));
  return p.str();
}

KernelCall lower_quantize(const Node& n) {
  const Value *x = n.input(0), *scale = n.input(1), *zp = n.input(2), *y = n.outputs.at(0);
  if (!x || !scale) throw CompileError(n.describe() + ": needs x and y_scale");
  require_dtype(n, x, DType::Float32, "input");
  require_dtype(n, scale, DType::Float32, "scale");
  if (zp && zp->dtype != y->dtype) throw CompileError(n.describe() + ": zero point and output dtypes differ");
  if (zp && shape_elements(zp->shape) != shape_elements(scale->shape))
    throw CompileError(n.describe() + ": zero point and scale shapes differ");
  KernelCall k;
  k.params_type = "kiln_quant_params_t";
  k.params_init = quant_layout(n, x->shape, scale->shape, y->dtype);
  k.call = std::string("kiln_quantize_linear_f32(&$params, $in0, $in1, ") + (zp ? "$in2" : "NULL") + ", $out0)";
  return k;
}

KernelCall lower_dequantize(const Node& n) {
  const Value *x = n.input(0), *scale = n.input(1), *zp = n.input(2), *y = n.outputs.at(0);
  if (!x || !scale) throw CompileError(n.describe() + ": needs x and x_scale");
  require_dtype(n, scale, DType::Float32, "scale");
  require_dtype(n, y, DType::Float32, "output");
  if (zp && zp->dtype != x->dtype) throw CompileError(n.describe() + ": zero point and input dtypes differ");
  if (zp && shape_elements(zp->shape) != shape_elements(scale->shape))
    throw CompileError(n.describe() + ": zero point and scale shapes differ");
  KernelCall k;
  k.params_type = "kiln_quant_params_t";
  k.params_init = quant_layout(n, x->shape, scale->shape, x->dtype);
  k.call = std::string("kiln_dequantize_linear_f32(&$params, $in0, $in1, ") + (zp ? "$in2" : "NULL") + ", $out0)";
  return k;
}

KernelCall lower_dynamic_quantize(const Node& n) {
  const Value* x = n.input(0);
  require_dtype(n, x, DType::Float32, "input");
  if (n.outputs.size() != 3) throw CompileError(n.describe() + ": needs the y, y_scale and y_zero_point outputs");
  require_dtype(n, n.outputs[0], DType::UInt8, "output");
  require_dtype(n, n.outputs[1], DType::Float32, "output");
  require_dtype(n, n.outputs[2], DType::UInt8, "output");
  check_fits_32bit(n, x->shape);
  KernelCall k;
  k.params_type = "kiln_dynamic_quant_params_t";
  k.params_init = ParamsInit().u("size", shape_elements(x->shape)).str();
  k.call = "kiln_dynamic_quantize_linear_f32(&$params, $in0, $out0, $out1, $out2)";
  return k;
}

}  // namespace

void register_quantize_lowerings() {
  register_lowering("QuantizeLinear", lower_quantize);
  register_lowering("DequantizeLinear", lower_dequantize);
  register_lowering("DynamicQuantizeLinear", lower_dynamic_quantize);
}

}  // namespace kiln
