// UNIDIRECTIONAL_SEQUENCE_LSTM (float32) -> one ONNX LSTM node.
//
// TFLite keeps the gates in separate tensors (input, forget, cell, output); ONNX
// stacks them in the order i, o, f, c, so the weights, biases and peepholes are
// concatenated at compile time. The TFLite layout flag maps to ONNX's `layout`
// (1 = batch major). The state tensors are TFLite variables that the runtime keeps
// between invocations; the compiled model starts every inference from zero state
// (as TFLite does after ResetVariableTensors), so a model that streams state from
// one call to the next needs the state exposed as inputs instead.
// Not supported (a clear error): int8/int16 LSTM, CIFG (no input gate),
// projection, layer normalization, cell/projection clipping, activations other
// than TANH and RELU.

#include "tflite/import_context.h"

namespace kiln::tflite {

namespace fb = kiln::tflite_fb;

namespace {

// TFLite's input positions.
enum LstmInput : size_t {
  kInput = 0,
  kInputToInput = 1, kInputToForget = 2, kInputToCell = 3, kInputToOutput = 4,
  kRecurrentToInput = 5, kRecurrentToForget = 6, kRecurrentToCell = 7, kRecurrentToOutput = 8,
  kCellToInput = 9, kCellToForget = 10, kCellToOutput = 11,
  kInputGateBias = 12, kForgetGateBias = 13, kCellGateBias = 14, kOutputGateBias = 15,
  kProjectionWeights = 16, kProjectionBias = 17,
  kOutputState = 18, kCellState = 19,
  kInputLayerNorm = 20, kForgetLayerNorm = 21, kCellLayerNorm = 22, kOutputLayerNorm = 23,
};

// The float values of constant inputs `ids`, each of `shape`, stacked in order.
std::vector<double> stacked(ImportContext& c, const Operator& op, std::initializer_list<size_t> ids, const Shape& shape) {
  std::vector<double> out;
  for (size_t i : ids) {
    const Tensor& t = c.input(op, i);
    c.require_dtype(op, t, DType::Float32);
    if (t.shape != shape)
      c.fail(op, "input " + std::to_string(i) + " ('" + t.name + "') has shape " + shape_str(t.shape) + ", expected " +
                     shape_str(shape));
    const auto v = c.constant_input(op, i)->to_doubles();
    out.insert(out.end(), v.begin(), v.end());
  }
  return out;
}

void unidirectional_sequence_lstm(ImportContext& c, const Operator& op) {
  c.require_arity(op, 20, 24, 1);
  const Tensor &x = c.input(op, kInput), &y = c.output(op, 0);
  c.require_dtype(op, x, DType::Float32);
  c.require_dtype(op, y, DType::Float32);
  c.require_rank(op, x, 3);
  const auto* o = c.options<fb::UnidirectionalSequenceLSTMOptions>(op);
  if (o->cell_clip() != 0.0f || o->proj_clip() != 0.0f) c.fail(op, "cell and projection clipping are not supported");
  std::string act;
  switch (o->fused_activation_function()) {
    case fb::ActivationFunctionType::TANH: act = "Tanh"; break;
    case fb::ActivationFunctionType::RELU: act = "Relu"; break;
    default: c.fail(op, "only the TANH and RELU activations are supported");
  }
  if (!c.has_input(op, kInputToInput)) c.fail(op, "CIFG (coupled input and forget gates) is not supported");
  for (size_t i : {kProjectionWeights, kProjectionBias})
    if (c.has_input(op, i)) c.fail(op, "projection is not supported");
  for (size_t i : {kInputLayerNorm, kForgetLayerNorm, kCellLayerNorm, kOutputLayerNorm})
    if (c.has_input(op, i)) c.fail(op, "layer normalization is not supported");

  const bool time_major = o->time_major();
  const int64_t steps = time_major ? x.shape[0] : x.shape[1], batch = time_major ? x.shape[1] : x.shape[0];
  const int64_t n_input = x.shape[2];
  const int64_t n_cell = c.input(op, kInputToForget).shape.empty() ? 0 : c.input(op, kInputToForget).shape[0];
  if (n_cell <= 0) c.fail(op, "the weights have no cells");
  const Shape out_shape = time_major ? Shape{steps, batch, n_cell} : Shape{batch, steps, n_cell};
  if (y.shape != out_shape) c.fail(op, "output has shape " + shape_str(y.shape) + ", expected " + shape_str(out_shape));
  for (size_t i : {kOutputState, kCellState}) {
    const Tensor& s = c.input(op, i);
    if (shape_elements(s.shape) != batch * n_cell) c.fail(op, "state '" + s.name + "' does not hold batch x cells");
  }

  // ONNX gate order: input, output, forget, cell.
  const auto w = stacked(c, op, {kInputToInput, kInputToOutput, kInputToForget, kInputToCell}, {n_cell, n_input});
  const auto r = stacked(c, op, {kRecurrentToInput, kRecurrentToOutput, kRecurrentToForget, kRecurrentToCell},
                         {n_cell, n_cell});
  auto b = stacked(c, op, {kInputGateBias, kOutputGateBias, kForgetGateBias, kCellGateBias}, {n_cell});
  b.resize(size_t(8 * n_cell), 0.0);  // the recurrent biases are zero
  std::vector<Value*> ins{c.value(op, kInput),
                          c.constant(op, Constant::from_doubles(DType::Float32, {1, 4 * n_cell, n_input}, w), "W"),
                          c.constant(op, Constant::from_doubles(DType::Float32, {1, 4 * n_cell, n_cell}, r), "R"),
                          c.constant(op, Constant::from_doubles(DType::Float32, {1, 8 * n_cell}, b), "B")};
  const bool peephole = c.has_input(op, kCellToForget);
  if (peephole != c.has_input(op, kCellToOutput) || peephole != c.has_input(op, kCellToInput))
    c.fail(op, "peephole weights must be given for all three gates or none");
  if (peephole) {
    const auto p = stacked(c, op, {kCellToInput, kCellToOutput, kCellToForget}, {n_cell});
    ins.insert(ins.end(), {nullptr, nullptr, nullptr,
                           c.constant(op, Constant::from_doubles(DType::Float32, {1, 3 * n_cell}, p), "P")});
  }
  const Shape onnx_y = time_major ? Shape{steps, 1, batch, n_cell} : Shape{batch, steps, 1, n_cell};
  Value* yy = c.temp(op, DType::Float32, onnx_y, "Y");
  Node* n = c.add(op, "LSTM", ins, {yy});
  n->attrs["hidden_size"] = n_cell;
  n->attrs["layout"] = int64_t(time_major ? 0 : 1);
  n->attrs["activations"] = std::vector<std::string>{"Sigmoid", act, act};
  c.add(op, "Reshape", {yy, c.int64s(op, out_shape, "shape")}, {c.output_value(op, 0)}, "output");
}

}  // namespace

void register_lstm_ops() {
  register_op(fb::BuiltinOperator::UNIDIRECTIONAL_SEQUENCE_LSTM, OpFlavor::Float, unidirectional_sequence_lstm);
}

}  // namespace kiln::tflite
