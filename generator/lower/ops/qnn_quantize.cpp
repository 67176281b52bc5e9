// KilnQQuantizeF32 (docs/quantization.md): a TFLite model's float -> int8 QUANTIZE
// -> kiln_quantize_f32_s8 (crt/include/kiln/nn_s8_quantize.h): float32 division,
// ties rounded away from zero as TFLite does (ONNX QuantizeLinear rounds ties to
// even, so a .tflite model's boundary is not a QuantizeLinear).
#include <cmath>

#include "ir/kiln_ops.h"
#include "lower/lower_util.h"
#include "lower/ops/ops.h"
#include "util/error.h"

namespace kiln {

namespace {

KernelCall lower_qquantize_f32(const Node& n) {
  const Value* x = n.input(0);
  const Value* y = n.outputs.at(0);
  if (!x) throw CompileError(n.describe() + ": needs x");
  require_dtype(n, x, DType::Float32, "input");
  require_dtype(n, y, DType::Int8, "output");
  if (x->shape != y->shape)
    throw CompileError(n.describe() + ": output " + shape_str(y->shape) + " differs from input " + shape_str(x->shape));
  const auto attrs = ops::get_attrs<ops::QQuantizeF32>(n);
  const float scale = float(attrs.y_scale);
  const int64_t zp = attrs.y_zero_point;
  if (!(scale > 0.0f) || !std::isfinite(scale)) throw CompileError(n.describe() + ": y_scale must be positive and finite");
  if (zp < -128 || zp > 127) throw CompileError(n.describe() + ": y_zero_point must be an int8 value");
  check_fits_32bit(n, x->shape);
  KernelCall k;
  k.params_type = "kiln_quantize_f32_s8_params_t";
  k.params_init = ParamsInit().u("size", shape_elements(x->shape)).f("scale", scale).i("zero_point", zp).str();
  k.call = "kiln_quantize_f32_s8(&$params, $in0, $out0)";
  return k;
}

}  // namespace

void register_qnn_quantize_lowerings() { register_lowering("KilnQQuantizeF32", lower_qquantize_f32); }

}  // namespace kiln
