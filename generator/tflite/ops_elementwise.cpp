// Element-wise TFLite operators -> ONNX-style IR ops: float math (unary and
// binary; DIV, with its fused activation, is ops_float.cpp's like ADD), comparisons
// and logical ops (bool results), SELECT_V2, ADD_N, CAST.
//
// Each maps to the ONNX operator with the same float semantics, or to a short
// chain of them: RSQRT is 1 / sqrt(x) (TFLite computes it so), SQUARE is x * x,
// SQUARED_DIFFERENCE (a - b)^2 with the difference computed once, FLOOR_DIV
// floor(a / b), NOT_EQUAL not(a == b). ROUND is ONNX Round: both round half to
// even. Broadcasting is numpy's in both formats (NHWC tensors keep their order, so
// no layout change is needed). Integer forms of these operators (int8 with
// TFLite's requantization) are not mapped here: they are refused by name.

#include "tflite/import_context.h"
#include "util/quoted.h"

namespace kiln::tflite {

namespace fb = kiln::tflite_fb;

namespace {

void require_all(ImportContext& c, const Operator& op, DType dtype, size_t inputs) {
  for (size_t i = 0; i < inputs; ++i) c.require_dtype(op, c.input(op, i), dtype);
}

// x -> onnx_op(x): ABS, CEIL, COS, EXP, FLOOR, LOG, NEG, ROUND, SIN, SQRT, ELU.
void unary_math(ImportContext& c, const Operator& op, const std::string& onnx_op) {
  c.require_arity(op, 1, 1, 1);
  require_all(c, op, DType::Float32, 1);
  c.require_dtype(op, c.output(op, 0), DType::Float32);
  Node* n = c.add(op, onnx_op, {c.value(op, 0)}, {c.output_value(op, 0)});
  if (onnx_op == "Elu") n->attrs["alpha"] = 1.0;  // TFLite's ELU has no alpha: exp(x) - 1 below 0
}

// RSQRT: 1 / sqrt(x).
void rsqrt(ImportContext& c, const Operator& op) {
  c.require_arity(op, 1, 1, 1);
  require_all(c, op, DType::Float32, 1);
  c.require_dtype(op, c.output(op, 0), DType::Float32);
  Value* x = c.value(op, 0);
  Value* root = c.temp(op, DType::Float32, x->shape, "sqrt");
  c.add(op, "Sqrt", {x}, {root}, "sqrt");
  c.add(op, "Reciprocal", {root}, {c.output_value(op, 0)});
}

// SQUARE: x * x.
void square(ImportContext& c, const Operator& op) {
  c.require_arity(op, 1, 1, 1);
  require_all(c, op, DType::Float32, 1);
  c.require_dtype(op, c.output(op, 0), DType::Float32);
  Value* x = c.value(op, 0);
  c.add(op, "Mul", {x, x}, {c.output_value(op, 0)});
}

// MAXIMUM, MINIMUM: one ONNX binary op (no fused activation).
void binary_math(ImportContext& c, const Operator& op, const std::string& onnx_op) {
  c.require_arity(op, 2, 2, 1);
  require_all(c, op, DType::Float32, 2);
  c.require_dtype(op, c.output(op, 0), DType::Float32);
  c.add(op, onnx_op, {c.value(op, 0), c.value(op, 1)}, {c.output_value(op, 0)});
}

// The first step of a two-node float binary operator: onnx_op(a, b) into a new
// value of the output's shape (the caller adds the second node into the output).
Value* float_binary_step(ImportContext& c, const Operator& op, const std::string& onnx_op, const std::string& what) {
  c.require_arity(op, 2, 2, 1);
  require_all(c, op, DType::Float32, 2);
  c.require_dtype(op, c.output(op, 0), DType::Float32);
  Value* t = c.temp(op, DType::Float32, c.output(op, 0).shape, what);
  c.add(op, onnx_op, {c.value(op, 0), c.value(op, 1)}, {t}, what);
  return t;
}

// SQUARED_DIFFERENCE: d = a - b, then d * d.
void squared_difference(ImportContext& c, const Operator& op) {
  Value* d = float_binary_step(c, op, "Sub", "difference");
  c.add(op, "Mul", {d, d}, {c.output_value(op, 0)});
}

// FLOOR_DIV on floats: floor(a / b).
void floor_div(ImportContext& c, const Operator& op) {
  Value* q = float_binary_step(c, op, "Div", "quotient");
  c.add(op, "Floor", {q}, {c.output_value(op, 0)});
}

// EQUAL, NOT_EQUAL, LESS, LESS_EQUAL, GREATER, GREATER_EQUAL on float32 or int32
// inputs of one dtype, or int8 inputs of one quantization; a bool result.
void comparison(ImportContext& c, const Operator& op, const std::string& onnx_op, bool negate) {
  c.require_arity(op, 2, 2, 1);
  const Tensor &a = c.input(op, 0), &b = c.input(op, 1);
  if (a.dtype == DType::Int8) {
    // TFLite rescales both sides by one multiplier when their quantization is the
    // same, which keeps the order of the raw values: compared as they are.
    c.require_same_quantization(op, a, b);
  } else {
    if (a.dtype != DType::Float32 && a.dtype != DType::Int32)
      c.fail(op, a.label() + " is " + dtype_name(a.dtype) + "; Kiln compares float32, int32 and int8 tensors");
    c.require_dtype(op, b, a.dtype);
  }
  c.require_dtype(op, c.output(op, 0), DType::Bool);
  Value* y = c.output_value(op, 0);
  if (!negate) {
    c.add(op, onnx_op, {c.value(op, 0), c.value(op, 1)}, {y});
    return;
  }
  Value* eq = c.temp(op, DType::Bool, y->shape, "equal");
  c.add(op, onnx_op, {c.value(op, 0), c.value(op, 1)}, {eq}, "equal");
  c.add(op, "Not", {eq}, {y});
}

// LOGICAL_AND, LOGICAL_OR (two bool inputs) and LOGICAL_NOT (one).
void logical(ImportContext& c, const Operator& op, const std::string& onnx_op, size_t inputs) {
  c.require_arity(op, inputs, inputs, 1);
  require_all(c, op, DType::Bool, inputs);
  c.require_dtype(op, c.output(op, 0), DType::Bool);
  std::vector<Value*> ins;
  for (size_t i = 0; i < inputs; ++i) ins.push_back(c.value(op, i));
  c.add(op, onnx_op, ins, {c.output_value(op, 0)});
}

// SELECT_V2: condition ? a : b with numpy broadcasting (ONNX Where). The branches
// are float32 or int32, or int8 with the output's quantization (bytes are picked,
// not rescaled).
void select_v2(ImportContext& c, const Operator& op) {
  c.require_arity(op, 3, 3, 1);
  c.require_dtype(op, c.input(op, 0), DType::Bool);
  const Tensor &a = c.input(op, 1), &b = c.input(op, 2), &y = c.output(op, 0);
  if (a.dtype == DType::Int8) {
    c.require_same_quantization(op, a, y);
    c.require_same_quantization(op, b, y);
  } else {
    if (a.dtype != DType::Float32 && a.dtype != DType::Int32)
      c.fail(op, a.label() + " is " + dtype_name(a.dtype) + "; Kiln selects float32, int32 and int8 tensors");
    c.require_dtype(op, b, a.dtype);
    c.require_dtype(op, y, a.dtype);
  }
  c.add(op, "Where", {c.value(op, 0), c.value(op, 1), c.value(op, 2)}, {c.output_value(op, 0)});
}

// ADD_N: the sum of its inputs, all of one shape (ONNX Sum).
void add_n(ImportContext& c, const Operator& op) {
  if (op.inputs.empty()) c.fail(op, "ADD_N needs at least one input");
  c.require_arity(op, 1, op.inputs.size(), 1);
  std::vector<Value*> ins;
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    c.require_dtype(op, c.input(op, i), DType::Float32);
    if (c.input(op, i).shape != c.output(op, 0).shape)
      c.fail(op, c.input(op, i).label() + " has shape " + shape_str(c.input(op, i).shape) + ", the output " +
                     shape_str(c.output(op, 0).shape));
    ins.push_back(c.value(op, i));
  }
  c.require_dtype(op, c.output(op, 0), DType::Float32);
  c.add(op, "Sum", ins, {c.output_value(op, 0)});
}

// CAST between float32, int32, int64, int16, uint8 and bool (ONNX Cast: float to
// integer truncates toward zero, as TFLite's static_cast does).
void cast(ImportContext& c, const Operator& op) {
  c.require_arity(op, 1, 1, 1);
  const Tensor &x = c.input(op, 0), &y = c.output(op, 0);
  for (const Tensor* t : {&x, &y}) {
    if (!t->quant.scale.empty())
      c.fail(op, t->label() + " is quantized; CAST converts plain numbers (use DEQUANTIZE / QUANTIZE)");
    switch (t->dtype) {
      case DType::Float32: case DType::Int32: case DType::Int64: case DType::Int16: case DType::UInt8:
      case DType::Int8: case DType::Bool: break;
      default: c.fail(op, t->label() + " is " + dtype_name(t->dtype) + ", which CAST does not support in Kiln");
    }
  }
  Node* n = c.add(op, "Cast", {c.value(op, 0)}, {c.output_value(op, 0)});
  n->attrs["to"] = int64_t(y.dtype);
}

}  // namespace

void register_elementwise_ops() {
  using B = fb::BuiltinOperator;
  const auto F = OpFlavor::Float;
  const auto Any = OpFlavor::Any;
  const std::pair<B, const char*> unaries[] = {
      {B::ABS, "Abs"},   {B::CEIL, "Ceil"}, {B::COS, "Cos"},     {B::EXP, "Exp"},   {B::FLOOR, "Floor"},
      {B::LOG, "Log"},   {B::NEG, "Neg"},   {B::ROUND, "Round"}, {B::SIN, "Sin"},   {B::SQRT, "Sqrt"},
      {B::ELU, "Elu"},
  };
  for (const auto& [code, name] : unaries) {
    const std::string onnx_op = name;
    register_op(code, F, [onnx_op](ImportContext& c, const Operator& op) { unary_math(c, op, onnx_op); });
  }
  register_op(B::RSQRT, F, rsqrt);
  register_op(B::SQUARE, F, square);
  register_op(B::MAXIMUM, F, [](ImportContext& c, const Operator& op) { binary_math(c, op, "Max"); });
  register_op(B::MINIMUM, F, [](ImportContext& c, const Operator& op) { binary_math(c, op, "Min"); });
  register_op(B::SQUARED_DIFFERENCE, F, squared_difference);
  register_op(B::FLOOR_DIV, F, floor_div);
  const std::tuple<B, const char*, bool> comparisons[] = {
      {B::EQUAL, "Equal", false},          {B::NOT_EQUAL, "Equal", true},
      {B::LESS, "Less", false},            {B::LESS_EQUAL, "LessOrEqual", false},
      {B::GREATER, "Greater", false},      {B::GREATER_EQUAL, "GreaterOrEqual", false},
  };
  for (const auto& [code, name, negate] : comparisons) {
    const std::string onnx_op = name;
    const bool neg = negate;
    register_op(code, Any, [onnx_op, neg](ImportContext& c, const Operator& op) { comparison(c, op, onnx_op, neg); });
  }
  register_op(B::LOGICAL_AND, Any, [](ImportContext& c, const Operator& op) { logical(c, op, "And", 2); });
  register_op(B::LOGICAL_OR, Any, [](ImportContext& c, const Operator& op) { logical(c, op, "Or", 2); });
  register_op(B::LOGICAL_NOT, Any, [](ImportContext& c, const Operator& op) { logical(c, op, "Not", 1); });
  register_op(B::SELECT_V2, Any, select_v2);
  register_op(B::ADD_N, F, add_n);
  register_op(B::CAST, Any, cast);
}

}  // namespace kiln::tflite
