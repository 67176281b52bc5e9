// RNN, GRU and LSTM (inference), float32: one kernel call per node running every
// time step and direction (crt/include/kiln/rnn.h). The lowering checks shapes, turns
// the `activations` / `activation_alpha` / `activation_beta` attributes into the
// kernel's activation table, and sizes the state scratch buffer.
#include <algorithm>
#include <cctype>

#include "lower/lower_util.h"
#include "lower/ops/ops.h"
#include "util/error.h"
#include "util/quoted.h"

namespace kiln {

namespace {

enum class RnnOp { Rnn, Gru, Lstm };

struct ActInfo {
  const char* name;
  const char* c_enum;
  bool uses_alpha, uses_beta;
  double alpha, beta;  // ONNX defaults of the corresponding operators
};

const ActInfo kActs[] = {
    {"relu", "KILN_ACT_RELU", false, false, 0, 0},
    {"tanh", "KILN_ACT_TANH", false, false, 0, 0},
    {"sigmoid", "KILN_ACT_SIGMOID", false, false, 0, 0},
    {"affine", "KILN_ACT_AFFINE", true, true, 1.0, 0.0},
    {"leakyrelu", "KILN_ACT_LEAKY_RELU", true, false, 0.01, 0},
    {"thresholdedrelu", "KILN_ACT_THRESHOLDED_RELU", true, false, 1.0, 0},
    {"scaledtanh", "KILN_ACT_SCALED_TANH", true, true, 1.0, 1.0},
    {"hardsigmoid", "KILN_ACT_HARD_SIGMOID", true, true, 0.2, 0.5},
    {"elu", "KILN_ACT_ELU", true, false, 1.0, 0},
    {"softsign", "KILN_ACT_SOFTSIGN", false, false, 0, 0},
    {"softplus", "KILN_ACT_SOFTPLUS", false, false, 0, 0},
};

std::string out_or_null(const Node& n, size_t i) {
  return i < n.outputs.size() && n.outputs[i]->dtype != DType::Undefined ? "$out" + std::to_string(i) : "NULL";
}

void require_shape(const Node& n, size_t i, const Shape& want, const char* what) {
  const Value* v = n.input(i);
  if (v != nullptr && v->shape != want)
    throw CompileError(n.describe() + ": " + what + " has shape " + shape_str(v->shape) + "; expected " +
                       shape_str(want));
}

KernelCall lower_recurrent(const Node& n, RnnOp op) {
  const char* op_name = op == RnnOp::Rnn ? "rnn" : op == RnnOp::Gru ? "gru" : "lstm";
  const int64_t gates = op == RnnOp::Rnn ? 1 : op == RnnOp::Gru ? 3 : 4;
  const size_t acts_per_dir = op == RnnOp::Rnn ? 1 : op == RnnOp::Gru ? 2 : 3;
  // Inputs: X W R B sequence_lens initial_h [initial_c P]; outputs: Y Y_h [Y_c].
  for (size_t i = 0; i < n.inputs.size(); ++i)
    if (i != 4) require_dtype(n, n.input(i), DType::Float32, "input");
  require_dtype(n, n.input(4), DType::Int32, "sequence_lens");
  for (const Value* v : n.outputs)
    if (v->dtype != DType::Undefined) require_dtype(n, v, DType::Float32, "output");
  if (!n.input(0) || !n.input(1) || !n.input(2)) throw CompileError(n.describe() + ": X, W and R are required");

  const std::string direction = n.attr_string("direction", "forward");
  int64_t dirs = 1;
  bool reverse = false;
  if (direction == "bidirectional") dirs = 2;
  else if (direction == "reverse") reverse = true;
  else if (direction != "forward")
    throw CompileError(n.describe() + ": direction " + in_quotes(direction) + " is not supported");
  const int64_t layout = n.opset >= 14 ? n.attr_int("layout", 0) : 0;
  if (layout != 0 && layout != 1) throw CompileError(n.describe() + ": layout must be 0 or 1");

  const Shape& xs = n.input(0)->shape;
  if (xs.size() != 3) throw CompileError(n.describe() + ": X must have rank 3");
  check_fits_32bit(n, xs);
  const int64_t seq = layout ? xs[1] : xs[0], batch = layout ? xs[0] : xs[1], input = xs[2];
  const Shape& ws = n.input(1)->shape;
  if (ws.size() != 3 || ws[0] != dirs || ws[2] != input || ws[1] % gates != 0)
    throw CompileError(n.describe() + ": W has shape " + shape_str(ws) + ", which does not match X " +
                       shape_str(xs) + " and direction " + in_quotes(direction));
  const int64_t hidden = ws[1] / gates;
  if (n.has_attr("hidden_size") && n.attr_int("hidden_size", 0) != hidden)
    throw CompileError(n.describe() + ": hidden_size " + std::to_string(n.attr_int("hidden_size", 0)) +
                       " does not match W " + shape_str(ws));
  if (hidden <= 0) throw CompileError(n.describe() + ": hidden size must be positive");
  require_shape(n, 2, {dirs, gates * hidden, hidden}, "R");
  require_shape(n, 3, {dirs, 2 * gates * hidden}, "B");
  require_shape(n, 4, {batch}, "sequence_lens");
  const Shape state = layout ? Shape{batch, dirs, hidden} : Shape{dirs, batch, hidden};
  require_shape(n, 5, state, "initial_h");
  if (op == RnnOp::Lstm) {
    require_shape(n, 6, state, "initial_c");
    require_shape(n, 7, {dirs, 3 * hidden}, "P");
  }

  // Activations: per direction, in the op's order (f[, g[, h]]). alpha/beta lists are
  // consumed in order by the functions that take them (as onnxruntime does).
  std::vector<std::string> names;
  if (n.has_attr("activations")) names = std::get<std::vector<std::string>>(n.attrs.at("activations"));
  if (names.empty()) {
    const std::vector<std::string> dflt = op == RnnOp::Rnn   ? std::vector<std::string>{"Tanh"}
                                          : op == RnnOp::Gru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                                             : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
    for (int64_t d = 0; d < dirs; ++d) names.insert(names.end(), dflt.begin(), dflt.end());
  }
  if (names.size() < acts_per_dir * size_t(dirs))
    throw CompileError(n.describe() + ": attribute activations lists " + std::to_string(names.size()) +
                       " functions; " + std::to_string(acts_per_dir * size_t(dirs)) + " are needed");
  const std::vector<double> alphas = n.attr_floats("activation_alpha"), betas = n.attr_floats("activation_beta");
  size_t next_alpha = 0, next_beta = 0;
  // The initializer of one kiln_act_t; unused direction slots get a harmless Tanh.
  auto act_entry = [&](int64_t d, size_t a) -> std::string {
    if (d >= dirs) return "{ .kind = KILN_ACT_TANH, .alpha = 0.0f, .beta = 0.0f }";
    const std::string& nm = names[size_t(d) * acts_per_dir + a];
    std::string lower = nm;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    const ActInfo* info = nullptr;
    for (const auto& x : kActs)
      if (lower == x.name) info = &x;
    if (!info) throw CompileError(n.describe() + ": activation " + in_quotes(nm) + " is not supported");
    double alpha = info->alpha, beta = info->beta;
    if (info->uses_alpha && next_alpha < alphas.size()) alpha = alphas[next_alpha++];
    if (info->uses_beta && next_beta < betas.size()) beta = betas[next_beta++];
    return std::string("{ .kind = ") + info->c_enum + ", .alpha = " + c_float(alpha) + ", .beta = " + c_float(beta) +
           " }";
  };
  std::string act_init = "{";
  for (int64_t d = 0; d < 2; ++d) {
    // kiln_rnn_params_t has act[2]; GRU and LSTM have act[2][n].
    if (op == RnnOp::Rnn) {
      act_init += std::string(d ? ", " : " ") + act_entry(d, 0);
      continue;
    }
    act_init += d ? ", {" : " {";
    for (size_t a = 0; a < acts_per_dir; ++a) act_init += std::string(a ? ", " : " ") + act_entry(d, a);
    act_init += " }";
  }
  act_init += " }";

  const double clip = n.attr_float("clip", 0.0);
  if (clip < 0) throw CompileError(n.describe() + ": clip must be positive");
  const std::string shape_init = ParamsInit()
                                     .u("seq", seq)
                                     .u("batch", batch)
                                     .u("input", input)
                                     .u("hidden", hidden)
                                     .u("dirs", dirs)
                                     .u("reverse", reverse ? 1 : 0)
                                     .u("layout", layout)
                                     .f("clip", clip)
                                     .str();
  ParamsInit pi;
  pi.raw("s", shape_init).raw("act", act_init);
  if (op == RnnOp::Gru) pi.u("linear_before_reset", n.attr_int("linear_before_reset", 0) != 0);
  if (op == RnnOp::Lstm) pi.u("input_forget", n.attr_int("input_forget", 0) != 0);

  const int64_t states = op == RnnOp::Lstm ? 2 : 1;
  KernelCall k;
  k.params_type = std::string("kiln_") + op_name + "_params_t";
  k.params_init = pi.str();
  k.scratch.push_back({"state", uint64_t(states * batch * hidden + (gates + 1) * hidden) * 4u, 4});
  k.call = std::string("kiln_") + op_name + "_f32(&$params, $in0, $in1, $in2, " + in_or_null(n, 3) + ", " +
           in_or_null(n, 4) + ", " + in_or_null(n, 5) + ", ";
  if (op == RnnOp::Lstm) k.call += in_or_null(n, 6) + ", " + in_or_null(n, 7) + ", ";
  k.call += out_or_null(n, 0) + ", " + out_or_null(n, 1) + ", ";
  if (op == RnnOp::Lstm) k.call += out_or_null(n, 2) + ", ";
  k.call += "$scratch0)";
  return k;
}

}  // namespace

void register_rnn_lowerings() {
  register_lowering("RNN", [](const Node& n) { return lower_recurrent(n, RnnOp::Rnn); });
  register_lowering("GRU", [](const Node& n) { return lower_recurrent(n, RnnOp::Gru); });
  register_lowering("LSTM", [](const Node& n) { return lower_recurrent(n, RnnOp::Lstm); });
}

}  // namespace kiln
