#include "fold/rewrites.h"

#include <cmath>

namespace kiln {

namespace {

// Identity, and Dropout in inference (no mask used): the output is the input.
bool remove_identity(Graph& g, Node* n) {
  if (n->op_type != "Identity" && n->op_type != "Dropout") return false;
  if (n->op_type == "Dropout") {
    if (n->input(2) != nullptr) return false;
    if (n->outputs.size() > 1 && (!n->outputs[1]->users.empty() || n->outputs[1]->is_graph_output)) return false;
  }
  Value* in = n->inputs[0];
  Value* out = n->outputs[0];
  if (out->is_graph_output || in == nullptr) return false;  // the bufferizer handles output aliasing
  g.replace_all_uses(out, in);
  g.remove_dead_nodes();
  return true;
}

// Conv followed by BatchNormalization (inference) with constant parameters: the
// normalization becomes a per-output-channel scale of the weights and a new bias.
bool fold_batchnorm_into_conv(Graph& g, Node* bn) {
  if (bn->op_type != "BatchNormalization" || bn->inputs.size() != 5) return false;
  for (size_t i = 1; i < bn->outputs.size(); ++i)
    if (!bn->outputs[i]->users.empty() || bn->outputs[i]->is_graph_output) return false;
  Value* x = bn->inputs[0];
  Node* conv = x->producer;
  if (conv == nullptr || conv->op_type != "Conv" || x->users.size() != 1 || x->is_graph_output) return false;
  for (size_t i = 1; i < 5; ++i)
    if (!bn->inputs[i]->is_constant()) return false;
  Value* w = conv->input(1);
  Value* b = conv->input(2);
  if (!w || !w->is_constant() || (b && !b->is_constant()) || w->dtype != DType::Float32) return false;
  const int64_t c_out = w->shape[0];
  const int64_t per = w->num_elements() / std::max<int64_t>(c_out, 1);
  auto scale = bn->inputs[1]->constant->to_doubles(), beta = bn->inputs[2]->constant->to_doubles();
  auto mean = bn->inputs[3]->constant->to_doubles(), var = bn->inputs[4]->constant->to_doubles();
  if (int64_t(scale.size()) != c_out) return false;
  const double eps = bn->attr_float("epsilon", 1e-5);
  auto wv = w->constant->to_doubles();
  std::vector<double> bias = b ? b->constant->to_doubles() : std::vector<double>(size_t(c_out), 0.0);
  for (int64_t oc = 0; oc < c_out; ++oc) {
    double a = scale[size_t(oc)] / std::sqrt(var[size_t(oc)] + eps);
    for (int64_t i = 0; i < per; ++i) wv[size_t(oc * per + i)] *= a;
    bias[size_t(oc)] = (bias[size_t(oc)] - mean[size_t(oc)]) * a + beta[size_t(oc)];
  }
  Value* nw = g.add_value(g.unique_name(w->name + "_bn"), DType::Float32, w->shape);
  nw->constant = Constant::from_doubles(DType::Float32, w->shape, wv);
  Value* nb = g.add_value(g.unique_name(conv->name + "_bias_bn"), DType::Float32, {c_out});
  nb->constant = Constant::from_doubles(DType::Float32, {c_out}, bias);
  // Re-point the conv's weight and bias inputs, keeping the user lists consistent.
  auto repoint = [&](size_t slot, Value* nv) {
    if (slot < conv->inputs.size() && conv->inputs[slot]) {
      auto& us = conv->inputs[slot]->users;
      for (auto it = us.begin(); it != us.end(); ++it)
        if (*it == conv) {
          us.erase(it);
          break;
        }
      conv->inputs[slot] = nv;
    } else {
      conv->inputs.resize(slot + 1, nullptr);
      conv->inputs[slot] = nv;
    }
    nv->users.push_back(conv);
  };
  repoint(1, nw);
  repoint(2, nb);
  // The conv now produces the normalized value directly.
  Value* y = bn->outputs[0];
  if (y->is_graph_output) {
    // Swap which value the conv writes so the graph output keeps its name.
    x->users.clear();
    bn->inputs[0] = nullptr;
    conv->outputs[0] = y;
    y->producer = conv;
    x->producer = nullptr;
    bn->outputs[0] = g.add_value(g.unique_name(y->name + "_dead"), y->dtype, y->shape);
    bn->outputs[0]->producer = bn;
  } else {
    g.replace_all_uses(y, x);
  }
  g.remove_dead_nodes();
  return true;
}

}  // namespace

std::string apply_rewrites(Graph& g, Node* n) {
  if (remove_identity(g, n)) return "identity-removal";
  if (fold_batchnorm_into_conv(g, n)) return "conv-batchnorm";
  return "";
}

}  // namespace kiln
