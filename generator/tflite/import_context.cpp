#include "tflite/import_context.h"

#include <algorithm>
#include <cmath>

#include "util/error.h"
#include "util/float_to_int.h"
#include "util/quoted.h"

namespace kiln::tflite {

namespace fb = kiln::tflite_fb;

ImportContext::ImportContext(const Model& model, Graph& graph, std::string file)
    : model_(model), graph_(graph), file_(std::move(file)), values_(model.tensors.size(), nullptr) {}

void ImportContext::fail(const Operator& op, const std::string& what) const {
  throw CompileError(file_ + ": " + op.describe() + ": " + what);
}

void ImportContext::require_arity(const Operator& op, size_t min_inputs, size_t max_inputs, size_t outputs) const {
  size_t n = op.inputs.size();
  while (n > min_inputs && op.inputs[n - 1] == -1) --n;  // omitted trailing optional inputs
  if (n < min_inputs || n > max_inputs) {
    std::string want = min_inputs == max_inputs ? std::to_string(min_inputs)
                                                : std::to_string(min_inputs) + " to " + std::to_string(max_inputs);
    fail(op, "has " + std::to_string(op.inputs.size()) + " inputs, expected " + want);
  }
  if (op.outputs.size() != outputs)
    fail(op, "has " + std::to_string(op.outputs.size()) + " outputs, expected " + std::to_string(outputs));
}

bool ImportContext::has_input(const Operator& op, size_t i) const {
  return i < op.inputs.size() && op.inputs[i] >= 0;
}

const Tensor& ImportContext::input(const Operator& op, size_t i) const {
  if (!has_input(op, i)) fail(op, "input " + std::to_string(i) + " is missing");
  return model_.tensors[op.inputs[i]];
}

const Tensor& ImportContext::output(const Operator& op, size_t i) const {
  if (i >= op.outputs.size()) fail(op, "output " + std::to_string(i) + " is missing");
  return model_.tensors[op.outputs[i]];
}

ConstantPtr ImportContext::constant_input(const Operator& op, size_t i) const {
  const Tensor& t = input(op, i);
  // A constant made at import time (a decoded float16 DEQUANTIZE, a DENSIFY)
  // counts as one: TFLite computes those once, before the first inference.
  if (!t.data && values_[t.index] && values_[t.index]->constant) return values_[t.index]->constant;
  if (!t.data)
    fail(op, "input " + std::to_string(i) + " (" + t.quoted() + ") must be a constant tensor (a buffer with data)");
  return t.data;
}

void ImportContext::require_rank(const Operator& op, const Tensor& t, size_t rank) const {
  if (t.shape.size() != rank)
    fail(op, t.label() + " has shape " + shape_str(t.shape) + ", expected rank " + std::to_string(rank));
}

void ImportContext::require_dtype(const Operator& op, const Tensor& t, DType dtype) const {
  if (t.dtype != dtype)
    fail(op, t.label() + " is " + dtype_name(t.dtype) + ", expected " + dtype_name(dtype));
}

void ImportContext::require_same_quantization(const Operator& op, const Tensor& a, const Tensor& b) const {
  if (a.dtype != b.dtype)
    fail(op, "input " + a.quoted() + " is " + dtype_name(a.dtype) + " but output " + b.quoted() + " is " +
                   dtype_name(b.dtype));
  if (a.quant.scale != b.quant.scale || a.quant.zero_point != b.quant.zero_point)
    fail(op, "input " + a.quoted() + " and output " + b.quoted() + " have different quantization");
}

float ImportContext::scale(const Operator& op, const Tensor& t) const {
  if (t.quant.scale.size() != 1)
    fail(op, t.label() + " needs one (per-tensor) quantization scale, it has " +
                 std::to_string(t.quant.scale.size()));
  return t.quant.scale[0];
}

int64_t ImportContext::zero_point(const Operator& op, const Tensor& t) const {
  scale(op, t);
  const int64_t z = t.quant.zero_point[0];
  if (t.dtype == DType::Int8 && (z < -128 || z > 127))
    fail(op, t.label() + " has zero point " + std::to_string(z) + " outside int8");
  return z;
}

std::pair<int64_t, int64_t> ImportContext::activation_range_int8(const Operator& op, fb::ActivationFunctionType act,
                                                                 const Tensor& out) const {
  const float s = scale(op, out);
  const int64_t z = zero_point(op, out);
  // TFLite's Quantize for the bounds: zero_point + round(f / scale), the division
  // in float and the rounding half away from zero.
  // With a denormal scale f / s is inf: saturated, the bound then lies outside int8.
  auto q = [&](float f) { return z + saturated_round(f / s); };
  int64_t lo = -128, hi = 127;
  switch (act) {
    case fb::ActivationFunctionType::NONE: break;
    case fb::ActivationFunctionType::RELU: lo = std::max<int64_t>(lo, q(0.0f)); break;
    case fb::ActivationFunctionType::RELU6:
      lo = std::max<int64_t>(lo, q(0.0f));
      hi = std::min<int64_t>(hi, q(6.0f));
      break;
    case fb::ActivationFunctionType::RELU_N1_TO_1:
      lo = std::max<int64_t>(lo, q(-1.0f));
      hi = std::min<int64_t>(hi, q(1.0f));
      break;
    default:
      fail(op, std::string("fused activation ") + fb::EnumNameActivationFunctionType(act) +
                   " is not supported on int8");
  }
  if (lo > hi) fail(op, "the fused activation's range is empty on the output's quantization");
  return {lo, hi};
}

std::string ImportContext::value_name(const Tensor& t) {
  std::string base = t.name.empty() ? "tensor_" + std::to_string(t.index) : t.name;
  if (!graph_.find_value(base)) return base;
  return graph_.unique_name(base);
}

Value* ImportContext::value(const Operator& op, size_t i) {
  const Tensor& t = input(op, i);
  // A variable's bytes in the file, if any, are not its value: TFLite resets it.
  if (t.is_variable) return variable(op, variable_input_key(op, i), t);
  Value*& v = values_[t.index];
  if (v) return v;
  if (t.data) {
    v = graph_.add_value(value_name(t), t.dtype, t.shape);
    v->constant = t.data;
    return v;
  }
  fail(op, "input " + std::to_string(i) + " (" + t.quoted() +
               ") is neither a constant, a model input, nor the output of an earlier operator");
}

Value* ImportContext::output_value(const Operator& op, size_t i) {
  const Tensor& t = output(op, i);
  Value*& v = values_[t.index];
  if (v) fail(op, "output " + t.quoted() + " is already produced by an earlier operator (or is a model input)");
  if (t.data) fail(op, "output " + t.quoted() + " is a constant tensor");
  if (t.is_variable) fail(op, "output " + t.quoted() + " is a variable tensor (only an operator's inputs may be)");
  // Checked here, not only when the input is looked up: a mapping may create its
  // outputs first, and an operator reading its own output would make a cycle.
  for (int in : op.inputs)
    if (in == t.index) fail(op, "output " + t.quoted() + " is also one of its inputs");
  v = graph_.add_value(value_name(t), t.dtype, t.shape);
  return v;
}

Value* ImportContext::temp(const Operator& op, DType dtype, Shape shape, const std::string& what) {
  return graph_.add_value(graph_.unique_name(op.name + "_" + std::to_string(op.index) + "/" + what), dtype,
                          std::move(shape));
}

Value* ImportContext::constant(const Operator& op, ConstantPtr c, const std::string& what) {
  Value* v = temp(op, c->dtype(), c->shape(), what);
  v->constant = std::move(c);
  return v;
}

Value* ImportContext::int64s(const Operator& op, const std::vector<int64_t>& v, const std::string& what) {
  return constant(op, Constant::from_int64s({int64_t(v.size())}, v), what);
}

Node* ImportContext::add(const Operator& op, const std::string& op_type, std::vector<Value*> inputs,
                         std::vector<Value*> outputs, const std::string& what) {
  std::string name = op.name + "_" + std::to_string(op.index);
  if (!what.empty()) name += "/" + what;
  for (const auto& n : graph_.nodes)
    if (n->name == name) {
      name = graph_.unique_name(name);
      break;
    }
  Node* n = graph_.add_node(op_type, name, std::move(inputs), std::move(outputs));
  n->opset = graph_.opset;
  return n;
}

Value* ImportContext::graph_input(int tensor) {
  const Tensor& t = model_.tensors[tensor];
  Value*& v = values_[tensor];
  if (v) throw CompileError(file_ + ": " + t.label() +
                            " is listed twice as a model input");
  if (t.data) throw CompileError(file_ + ": model input " + t.quoted() + " is a constant tensor");
  if (t.is_resource) throw CompileError(file_ + ": model input " + t.quoted() + " is a resource variable's handle");
  v = graph_.add_value(value_name(t), t.dtype, t.shape);
  return v;
}

namespace {

struct Mappings {
  OpMapping int8, float32, any;
};

std::map<int32_t, Mappings>& registry() {
  static std::map<int32_t, Mappings> m;
  return m;
}

}  // namespace

void register_op(fb::BuiltinOperator code, OpFlavor flavor, OpMapping fn) {
  Mappings& m = registry()[int32_t(code)];
  (flavor == OpFlavor::Int8 ? m.int8 : flavor == OpFlavor::Float ? m.float32 : m.any) = std::move(fn);
}

std::vector<RegisteredMapping> registered_mappings() {
  std::vector<RegisteredMapping> out;
  for (const auto& [code, m] : registry()) out.push_back({code, bool(m.int8), bool(m.float32), bool(m.any)});
  return out;
}

void map_operator(ImportContext& ctx, const Operator& op) {
  auto it = registry().find(op.code);
  if (it == registry().end()) ctx.fail(op, "this operator is not supported by Kiln's TFLite importer");
  const Mappings& m = it->second;
  if (m.any) return m.any(ctx, op);
  const DType dt = ctx.input(op, 0).dtype;
  if (dt == DType::Int8 && m.int8) return m.int8(ctx, op);
  if (dt == DType::Float32 && m.float32) return m.float32(ctx, op);
  ctx.fail(op, "is not supported on " + dtype_name(dt) + " tensors" +
                   (m.int8 && m.float32 ? " (int8 and float32 are)"
                    : m.int8            ? " (int8 is)"
                                        : " (float32 is)"));
}

AxisPadding tflite_padding(fb::Padding padding, int64_t in, int64_t filter, int64_t stride, int64_t dilation) {
  AxisPadding p;
  const int64_t effective = (filter - 1) * dilation + 1;
  p.out = padding == fb::Padding::SAME ? (in + stride - 1) / stride : (in - effective + stride) / stride;
  // TFLite pads (out-1)*stride + effective - in in total, the odd one at the end.
  const int64_t total = std::max<int64_t>(0, (p.out - 1) * stride + effective - in);
  p.before = total / 2;
  p.after = total - p.before;
  return p;
}

Window2D window_2d(const ImportContext& c, const Operator& op, const Tensor& x, const Tensor& y, fb::Padding padding,
                   int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t dh, int64_t dw) {
  if (sh <= 0 || sw <= 0) c.fail(op, "strides must be positive");
  if (dh <= 0 || dw <= 0) c.fail(op, "dilations must be positive");
  if (kh <= 0 || kw <= 0) c.fail(op, "the window must not be empty");
  if (padding != fb::Padding::SAME && padding != fb::Padding::VALID) c.fail(op, "unknown padding");
  const AxisPadding ph = tflite_padding(padding, x.shape[1], kh, sh, dh);
  const AxisPadding pw = tflite_padding(padding, x.shape[2], kw, sw, dw);
  if (ph.out < 1 || pw.out < 1 || y.shape[1] != ph.out || y.shape[2] != pw.out || y.shape[0] != x.shape[0])
    c.fail(op, "output " + y.quoted() + " has shape " + shape_str(y.shape) + " but input " + shape_str(x.shape) +
                   " gives " + std::to_string(ph.out) + "x" + std::to_string(pw.out));
  return {{sh, sw}, {dh, dw}, {ph.before, pw.before, ph.after, pw.after}};
}

}  // namespace kiln::tflite
