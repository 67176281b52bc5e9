// UNIDIRECTIONAL_SEQUENCE_LSTM: float32 -> one ONNX LSTM node; int8 (int16 cell
// state, TFLite Micro's integer LSTM) -> one KilnQLstm node.
//
// TFLite keeps the gates in separate tensors (input, forget, cell, output); ONNX
// stacks them in the order i, o, f, c, so the weights, biases and peepholes are
// concatenated at compile time. The TFLite layout flag maps to ONNX's `layout`
// (1 = batch major). The float form's state tensors (TFLite variables) are state
// kept between runs (tflite/state.cpp): the LSTM starts from their values
// (initial_h, initial_c) and its final hidden and cell state (Y_h, Y_c) are
// assigned back to them, as TFLite's kernel updates them in place. A state input
// that is not a variable is read as it is (a model input, a constant). The int8
// form's KilnQLstm has no state operands: it starts every run from zero state, as
// TFLite does after ResetVariableTensors (the user guide says so).
// Float, not supported (a clear error): CIFG (no input gate), projection, layer
// normalization, cell/projection clipping, activations other than TANH and RELU.
// Int8 follows TFLite Micro's kernel, which has no peepholes, projection, layer
// normalization or CIFG either; its cell gate uses TANH.

#include <cmath>

#include "tflite/import_context.h"
#include "tflite/sigmoid_table_uint16.h"
#include "util/quoted.h"

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
      c.fail(op, "input " + std::to_string(i) + " (" + t.quoted() + ") has shape " + shape_str(t.shape) + ", expected " +
                     shape_str(shape));
    const auto v = c.constant_input(op, i)->to_doubles();
    out.insert(out.end(), v.begin(), v.end());
  }
  return out;
}

// What both forms read from the input and the gate weights, the output checked
// against it.
struct LstmSizes {
  bool time_major;
  int64_t steps, batch, n_input, n_cell;
  Shape out_shape;
};

LstmSizes lstm_sizes(ImportContext& c, const Operator& op, const fb::UnidirectionalSequenceLSTMOptions* o) {
  const Tensor &x = c.input(op, kInput), &y = c.output(op, 0);
  LstmSizes z;
  z.time_major = o->time_major();
  z.steps = z.time_major ? x.shape[0] : x.shape[1];
  z.batch = z.time_major ? x.shape[1] : x.shape[0];
  z.n_input = x.shape[2];
  z.n_cell = c.input(op, kInputToForget).shape.empty() ? 0 : c.input(op, kInputToForget).shape[0];
  if (z.n_cell <= 0) c.fail(op, "the weights have no cells");
  z.out_shape = z.time_major ? Shape{z.steps, z.batch, z.n_cell} : Shape{z.batch, z.steps, z.n_cell};
  if (y.shape != z.out_shape)
    c.fail(op, "output has shape " + shape_str(y.shape) + ", expected " + shape_str(z.out_shape));
  return z;
}

// Neither form has CIFG (coupled input and forget gates), projection or layer
// normalization.
void refuse_cifg_projection_layer_norm(ImportContext& c, const Operator& op) {
  if (!c.has_input(op, kInputToInput)) c.fail(op, "CIFG (coupled input and forget gates) is not supported");
  for (size_t i : {kProjectionWeights, kProjectionBias})
    if (c.has_input(op, i)) c.fail(op, "projection is not supported");
  for (size_t i : {kInputLayerNorm, kForgetLayerNorm, kCellLayerNorm, kOutputLayerNorm})
    if (c.has_input(op, i)) c.fail(op, "layer normalization is not supported");
}

// State input `i` as ONNX's initial_h / initial_c: a variable's current value (or
// a model input's, a computed value's) reshaped to `shape`; null for a constant
// zero state, which is what an omitted initial state means.
Value* lstm_state_input(ImportContext& c, const Operator& op, size_t i, const Shape& shape, const std::string& what) {
  const Tensor& t = c.input(op, i);
  c.require_dtype(op, t, DType::Float32);
  Value* v = c.value(op, i);
  if (v->is_constant()) {
    bool zero = true;
    for (double x : v->constant->to_doubles()) zero = zero && x == 0.0;
    if (zero) return nullptr;
  }
  Value* r = c.temp(op, DType::Float32, shape, what);
  c.add(op, "Reshape", {v, c.int64s(op, shape, what + "_shape")}, {r}, what);
  return r;
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
  refuse_cifg_projection_layer_norm(c, op);

  const auto [time_major, steps, batch, n_input, n_cell, out_shape] = lstm_sizes(c, op, o);
  for (size_t i : {kOutputState, kCellState}) {
    const Tensor& s = c.input(op, i);
    if (shape_elements(s.shape) != batch * n_cell) c.fail(op, "state " + s.quoted() + " does not hold batch x cells");
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
  // ONNX's state shape: [directions, batch, hidden], batch first with layout 1.
  const Shape onnx_state = time_major ? Shape{1, batch, n_cell} : Shape{batch, 1, n_cell};
  ins.resize(8, nullptr);
  ins[5] = lstm_state_input(c, op, kOutputState, onnx_state, "initial_h");
  ins[6] = lstm_state_input(c, op, kCellState, onnx_state, "initial_c");
  while (!ins.empty() && !ins.back()) ins.pop_back();
  const Shape onnx_y = time_major ? Shape{steps, 1, batch, n_cell} : Shape{batch, steps, 1, n_cell};
  Value* yy = c.temp(op, DType::Float32, onnx_y, "Y");
  // Y, then Y_h and Y_c for the states that are variables (an omitted optional
  // output is a value of no dtype).
  std::vector<Value*> outs{yy};
  const bool h_var = c.input(op, kOutputState).is_variable, c_var = c.input(op, kCellState).is_variable;
  if (h_var || c_var)
    outs.push_back(h_var ? c.temp(op, DType::Float32, onnx_state, "Y_h") : c.temp(op, DType::Undefined, {}, "unused"));
  if (c_var) outs.push_back(c.temp(op, DType::Float32, onnx_state, "Y_c"));
  Node* n = c.add(op, "LSTM", ins, outs);
  n->attrs["hidden_size"] = n_cell;
  n->attrs["layout"] = int64_t(time_major ? 0 : 1);
  n->attrs["activations"] = std::vector<std::string>{"Sigmoid", act, act};
  c.add(op, "Reshape", {yy, c.int64s(op, out_shape, "shape")}, {c.output_value(op, 0)}, "output");
  // The final states become the variables' values (TFLite updates them in place).
  for (size_t k = 1; k < outs.size(); ++k)
    if (outs[k]->dtype != DType::Undefined) {
      const size_t i = k == 1 ? kOutputState : kCellState;
      c.assign_variable(op, c.variable_input_key(op, i), outs[k], c.input(op, i));
    }
}


// ---- int8 ----------------------------------------------------------------------

// The per-tensor scale of a symmetric int8 weight tensor, checking its shape.
float int8_weight_scale(ImportContext& c, const Operator& op, size_t i, const Shape& shape) {
  const Tensor& t = c.input(op, i);
  c.require_dtype(op, t, DType::Int8);
  c.constant_input(op, i);
  if (t.shape != shape)
    c.fail(op, "input " + std::to_string(i) + " (" + t.quoted() + ") has shape " + shape_str(t.shape) + ", expected " +
                   shape_str(shape));
  if (c.zero_point(op, t) != 0) c.fail(op, "weights " + t.quoted() + " must be symmetric (zero point 0)");
  return c.scale(op, t);
}

void unidirectional_sequence_lstm_int8(ImportContext& c, const Operator& op) {
  c.require_arity(op, 20, 24, 1);
  const Tensor &x = c.input(op, kInput), &y = c.output(op, 0);
  c.require_dtype(op, x, DType::Int8);
  c.require_dtype(op, y, DType::Int8);
  c.require_rank(op, x, 3);
  const auto* o = c.options<fb::UnidirectionalSequenceLSTMOptions>(op);
  if (o->fused_activation_function() != fb::ActivationFunctionType::TANH)
    c.fail(op, "an int8 LSTM's cell gate must use TANH");
  refuse_cifg_projection_layer_norm(c, op);
  for (size_t i : {kCellToInput, kCellToForget, kCellToOutput})
    if (c.has_input(op, i)) c.fail(op, "peephole weights are not supported on int8 (TFLite Micro has none)");

  const auto [time_major, steps, batch, n_input, n_cell, out_shape] = lstm_sizes(c, op, o);

  // States: the hidden state is int8 (it feeds the recurrent products and is what
  // the output holds), the cell state int16 on a power-of-two scale.
  const Tensor &h = c.input(op, kOutputState), &cs = c.input(op, kCellState);
  c.require_dtype(op, h, DType::Int8);
  c.require_dtype(op, cs, DType::Int16);
  for (const Tensor* s : {&h, &cs})
    if (shape_elements(s->shape) != batch * n_cell) c.fail(op, "state " + in_quotes(s->name) + " does not hold batch x cells");
  const float h_scale = c.scale(op, h), cell_scale = c.scale(op, cs);
  const int64_t h_zp = c.zero_point(op, h);
  if (c.scale(op, y) != h_scale || c.zero_point(op, y) != h_zp)
    c.fail(op, "output " + y.quoted() + " must have the hidden state's quantization (it receives its values)");
  if (c.zero_point(op, cs) != 0) c.fail(op, "the cell state must have zero point 0");
  // TFLite Micro's CheckedLog2: the cell scale's nearest power of two.
  const float log2_scale = std::log(cell_scale) * (1.0f / std::log(2.0f));
  const float power = std::round(log2_scale);
  if (std::fabs(log2_scale - power) >= 1e-3f || power < -30 || power > 0)
    c.fail(op, "the cell state scale must be a power of two in [2^-30, 1]");

  // Gates in KilnQLstm's order: input, forget, cell, output.
  const size_t in_w[4] = {kInputToInput, kInputToForget, kInputToCell, kInputToOutput};
  const size_t rec_w[4] = {kRecurrentToInput, kRecurrentToForget, kRecurrentToCell, kRecurrentToOutput};
  const size_t biases[4] = {kInputGateBias, kForgetGateBias, kCellGateBias, kOutputGateBias};
  // TFLite Micro's scales: the gate products land in Q3.12, the activations give Q0.15.
  const double q3_12 = double(0.000244140625f), q0_15 = double(0.000030517578125f);
  const double x_scale = c.scale(op, x);
  std::vector<double> input_fc, recurrent_fc;
  std::vector<uint8_t> wi_bytes, wr_bytes;
  std::vector<int64_t> bias_values;
  for (int g = 0; g < 4; ++g) {
    input_fc.push_back(x_scale * double(int8_weight_scale(c, op, in_w[g], {n_cell, n_input})) / q3_12);
    recurrent_fc.push_back(double(h_scale) * double(int8_weight_scale(c, op, rec_w[g], {n_cell, n_cell})) / q3_12);
    for (int64_t v : c.constant_input(op, in_w[g])->to_int64s()) wi_bytes.push_back(uint8_t(int8_t(v)));
    for (int64_t v : c.constant_input(op, rec_w[g])->to_int64s()) wr_bytes.push_back(uint8_t(int8_t(v)));
    const Tensor& b = c.input(op, biases[g]);
    c.require_dtype(op, b, DType::Int32);
    if (b.shape != Shape{n_cell}) c.fail(op, "bias " + b.quoted() + " must be [" + std::to_string(n_cell) + "]");
    for (int64_t v : c.constant_input(op, biases[g])->to_int64s()) bias_values.push_back(v);
  }
  int64_t cell_clip = 0;
  if (o->cell_clip() > 0.0f) {
    // TFLite Micro: the clip over the cell scale in double, clamped to int16, truncated.
    const double q = std::min(std::max(double(o->cell_clip()) / double(cell_scale), -32768.0), 32767.0);
    cell_clip = int64_t(int16_t(q));
    if (cell_clip <= 0) c.fail(op, "cell_clip is below one step of the cell state");
  }
  std::vector<WideNum> table;
  for (uint16_t v : sigmoid_table_uint16()) table.push_back(WideNum{.i = v});
  Value* wi = c.constant(op, Constant::from_bytes(DType::Int8, {4, n_cell, n_input}, wi_bytes), "input_weights");
  Value* wr = c.constant(op, Constant::from_bytes(DType::Int8, {4, n_cell, n_cell}, wr_bytes), "recurrent_weights");
  Value* bv = c.constant(op, Constant::from_int64s({4, n_cell}, bias_values)->cast_to(DType::Int32), "bias");
  Value* tv = c.constant(op, Constant::from_wide(DType::UInt16, {256}, table), "sigmoid_table");
  Node* n = c.add(op, "KilnQLstm", {c.value(op, kInput), wi, wr, bv, tv}, {c.output_value(op, 0)});
  ops::QLstm q;
  q.time_major = int64_t(time_major ? 1 : 0);
  q.x_zero_point = c.zero_point(op, x);
  q.h_zero_point = h_zp;
  q.input_fc_scale = input_fc;
  q.recurrent_fc_scale = recurrent_fc;
  q.forget_cell_scale = q0_15 * double(cell_scale) / double(cell_scale);
  q.input_cell_scale = q0_15 * q0_15 / double(cell_scale);
  q.output_hidden_scale = q0_15 * q0_15 / double(h_scale);
  q.cell_scale_power = int64_t(power);
  q.cell_clip = cell_clip;
  ops::set_attrs(*n, q);
}

}  // namespace

void register_lstm_ops() {
  register_op(fb::BuiltinOperator::UNIDIRECTIONAL_SEQUENCE_LSTM, OpFlavor::Float, unidirectional_sequence_lstm);
  register_op(fb::BuiltinOperator::UNIDIRECTIONAL_SEQUENCE_LSTM, OpFlavor::Int8, unidirectional_sequence_lstm_int8);
}

}  // namespace kiln::tflite
