// Data movement and the float boundary: operators that work on any dtype.
//
// They stay ordinary ONNX ops on the tensor's own dtype (docs/quantization.md):
// the shapes come from the file's output tensors, which load_tflite validated,
// so a reshape-like operator needs nothing but its output shape.

#include "tflite/import_context.h"

namespace kiln::tflite {

namespace fb = kiln::tflite_fb;

void quantize_int8_to_int8(ImportContext& c, const Operator& op);  // ops_quantized.cpp

namespace {

// Quantized data movement keeps the bytes: the output must carry the input's
// quantization (TFLite's kernels copy bytes too, and the converter writes equal
// parameters), or the result would be silently reinterpreted.
void require_same_quantization(ImportContext& c, const Operator& op, const Tensor& a, const Tensor& b) {
  if (a.dtype != b.dtype)
    c.fail(op, "input '" + a.name + "' is " + dtype_name(a.dtype) + " but output '" + b.name + "' is " +
                   dtype_name(b.dtype));
  if (a.quant.scale != b.quant.scale || a.quant.zero_point != b.quant.zero_point)
    c.fail(op, "input '" + a.name + "' and output '" + b.name + "' have different quantization");
}

// RESHAPE, SQUEEZE, EXPAND_DIMS: the output tensor's shape says it all.
void reshape(ImportContext& c, const Operator& op, size_t max_inputs) {
  c.require_arity(op, 1, max_inputs, 1);
  const Tensor &x = c.input(op, 0), &y = c.output(op, 0);
  require_same_quantization(c, op, x, y);
  if (shape_elements(x.shape) != shape_elements(y.shape))
    c.fail(op, "cannot reshape " + shape_str(x.shape) + " to " + shape_str(y.shape));
  c.add(op, "Reshape", {c.value(op, 0), c.int64s(op, y.shape, "shape")}, {c.output_value(op, 0)});
}

// QUANTIZE: float -> int8 is QuantizeLinear; int8 -> int8 a requantization table.
void quantize(ImportContext& c, const Operator& op) {
  c.require_arity(op, 1, 1, 1);
  const Tensor &x = c.input(op, 0), &y = c.output(op, 0);
  c.require_dtype(op, y, DType::Int8);
  if (x.dtype == DType::Int8) return quantize_int8_to_int8(c, op);
  c.require_dtype(op, x, DType::Float32);
  if (x.shape != y.shape) c.fail(op, "input and output shapes differ");
  Value* s = c.constant(op, Constant::from_floats({}, {c.scale(op, y)}), "scale");
  Value* z = c.constant(op, Constant::from_wide(DType::Int8, {}, {WideNum{.i = c.zero_point(op, y)}}), "zero_point");
  c.add(op, "QuantizeLinear", {c.value(op, 0), s, z}, {c.output_value(op, 0)});
}

// DEQUANTIZE: int8 -> float is DequantizeLinear.
void dequantize(ImportContext& c, const Operator& op) {
  c.require_arity(op, 1, 1, 1);
  const Tensor &x = c.input(op, 0), &y = c.output(op, 0);
  c.require_dtype(op, x, DType::Int8);
  c.require_dtype(op, y, DType::Float32);
  if (x.shape != y.shape) c.fail(op, "input and output shapes differ");
  Value* s = c.constant(op, Constant::from_floats({}, {c.scale(op, x)}), "scale");
  Value* z = c.constant(op, Constant::from_wide(DType::Int8, {}, {WideNum{.i = c.zero_point(op, x)}}), "zero_point");
  c.add(op, "DequantizeLinear", {c.value(op, 0), s, z}, {c.output_value(op, 0)});
}

}  // namespace

void register_layout_ops() {
  using B = fb::BuiltinOperator;
  register_op(B::RESHAPE, OpFlavor::Any, [](ImportContext& c, const Operator& op) { reshape(c, op, 2); });
  register_op(B::SQUEEZE, OpFlavor::Any, [](ImportContext& c, const Operator& op) { reshape(c, op, 1); });
  register_op(B::EXPAND_DIMS, OpFlavor::Any, [](ImportContext& c, const Operator& op) { reshape(c, op, 2); });
  register_op(B::QUANTIZE, OpFlavor::Any, quantize);
  register_op(B::DEQUANTIZE, OpFlavor::Any, dequantize);
}

}  // namespace kiln::tflite
