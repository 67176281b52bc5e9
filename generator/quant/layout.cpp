#include "quant/layout.h"

#include <algorithm>
#include <numeric>
#include <set>
#include <string>

#include "quant/graph_edit.h"

namespace kiln::quant {

namespace {

std::vector<int64_t> perm_of(const Node* t) {
  const size_t r = t->input(0)->shape.size();
  std::vector<int64_t> rev(r);
  for (size_t i = 0; i < r; ++i) rev[i] = int64_t(r - 1 - i);
  return t->attr_ints("perm", rev);
}

// An int8 Transpose with a valid permutation of its input's dimensions.
bool is_int8_transpose(const Node* n) {
  if (!n || !is_default_domain(n) || n->op_type != "Transpose" || !n->input(0) || n->input(0)->dtype != DType::Int8)
    return false;
  auto p = perm_of(n);
  if (p.size() != n->input(0)->shape.size()) return false;
  std::sort(p.begin(), p.end());
  for (size_t i = 0; i < p.size(); ++i)
    if (p[i] != int64_t(i)) return false;
  return true;
}

std::vector<int64_t> inverse(const std::vector<int64_t>& p) {
  std::vector<int64_t> q(p.size());
  for (size_t d = 0; d < p.size(); ++d) q[size_t(p[d])] = int64_t(d);
  return q;
}

bool is_identity(const std::vector<int64_t>& p) {
  for (size_t i = 0; i < p.size(); ++i)
    if (p[i] != int64_t(i)) return false;
  return true;
}

// Shape of Transpose(x, p) for x of shape s, and back.
Shape permuted(const Shape& s, const std::vector<int64_t>& p) {
  Shape r(p.size());
  for (size_t d = 0; d < p.size(); ++d) r[d] = s[size_t(p[d])];
  return r;
}

// B(A(u)) -> one Transpose of u (or u itself).
bool compose(Graph& g, Node* b) {
  Node* a = b->input(0)->producer;
  if (!is_int8_transpose(a)) return false;
  const auto pa = perm_of(a), pb = perm_of(b);
  std::vector<int64_t> c(pb.size());
  for (size_t d = 0; d < pb.size(); ++d) c[d] = pa[size_t(pb[d])];
  Value* u = a->input(0);
  Value* out = b->outputs[0];
  if (is_identity(c) && !out->is_graph_output) {
    g.replace_all_uses(out, u);
    return true;
  }
  set_input(b, 0, u);
  if (is_identity(c)) {
    b->op_type = "Identity";
    b->attrs.clear();
  } else {
    b->attrs["perm"] = c;
  }
  return true;
}

// The runtime data inputs of a layout-free op (others are constants or parameters).
std::vector<size_t> data_inputs(const Node* n) {
  const std::string& op = n->op_type;
  if (op == "KilnQAdd" || op == "KilnQSub" || op == "KilnQMul") return {0, 1};
  if (op == "KilnQLookup") return {0};
  if (!is_default_domain(n) || n->outputs[0]->dtype != DType::Int8) return {};
  if (op == "Concat") {
    std::vector<size_t> r(n->inputs.size());
    std::iota(r.begin(), r.end(), 0);
    return r;
  }
  if (op == "Pad" && n->attr_string("mode", "constant") == "constant" && !n->input(3) &&
      (n->opset < 11 || (n->input(1) && n->input(1)->is_constant())))
    return {0};
  return {};
}

// op(T(u1), T(u2), c) -> T(op(u1, u2, c')) for layout-free ops.
bool sink(Graph& g, Node* n) {
  const auto idx = data_inputs(n);
  if (idx.empty() || n->outputs.size() != 1) return false;
  std::vector<int64_t> p;
  bool any_runtime = false;
  for (size_t i : idx) {
    const Value* v = n->input(i);
    if (!v) return false;
    if (v->is_constant()) continue;
    if (!is_int8_transpose(v->producer)) return false;
    const auto q = perm_of(v->producer);
    if (any_runtime && q != p) return false;
    p = q;
    any_runtime = true;
  }
  if (!any_runtime) return false;
  const size_t r = p.size();
  const auto pinv = inverse(p);
  for (size_t i : idx) {
    Value* v = n->input(i);
    if (!v->is_constant()) {
      set_input(n, i, v->producer->input(0));
      continue;
    }
    if (v->shape.size() > r) return false;  // (cannot happen for a well-formed op)
    Shape full(r - v->shape.size(), 1);
    full.insert(full.end(), v->shape.begin(), v->shape.end());
    ConstantPtr c = v->constant->reshaped(full)->transposed(pinv);
    set_input(n, i, constant_value(g, v->name + "_nhwc", c));
  }
  if (n->op_type == "Concat") {
    int64_t axis = n->attr_int("axis", 0);
    if (axis < 0) axis += int64_t(r);
    n->attrs["axis"] = p[size_t(axis)];
  } else if (n->op_type == "Pad") {
    std::vector<int64_t> pads = n->opset < 11 ? n->attr_ints("pads") : n->input(1)->constant->to_int64s();
    std::vector<int64_t> moved(pads.size());
    for (size_t d = 0; d < r; ++d) {
      moved[size_t(p[d])] = pads[d];
      moved[size_t(p[d]) + r] = pads[d + r];
    }
    if (n->opset < 11) n->attrs["pads"] = moved;
    else set_input(n, 1, constant_value(g, n->name + "_pads_nhwc", Constant::from_int64s({int64_t(moved.size())}, moved)));
  }
  // The op now produces the untransposed `un`; its old output comes from the Transpose.
  Value* out = n->outputs[0];
  Value* un = g.add_value(g.unique_name(out->name + "_untransposed"), out->dtype, permuted(out->shape, pinv));
  un->producer = n;
  n->outputs[0] = un;
  out->producer = nullptr;
  Node* t = insert_after(g, n, "Transpose", out->name + "_transpose", {un}, {out});
  t->attrs["perm"] = p;
  return true;
}

// Transpose -> Flatten / Reshape [N, K] -> fully connected layers: the reshape reads
// the untransposed tensor, the weights' columns follow the permutation.
bool transpose_into_weights(Graph& g, Node* f) {
  if (!is_default_domain(f) || (f->op_type != "Flatten" && f->op_type != "Reshape")) return false;
  Node* t = f->input(0)->producer;
  if (!is_int8_transpose(t)) return false;
  const auto p = perm_of(t);
  if (p.empty() || p[0] != 0) return false;
  const Shape& ts = t->outputs[0]->shape;
  const Shape& fs = f->outputs[0]->shape;
  if (fs.size() != 2 || fs[0] != ts[0] || f->outputs[0]->is_graph_output) return false;
  const Value* y = f->outputs[0];
  if (y->users.empty()) return false;
  int64_t k = 1;
  for (size_t d = 1; d < ts.size(); ++d) k *= ts[d];
  if (fs[1] != k) return false;
  for (const Node* u : y->users)
    if (u->op_type != "KilnQFullyConnected" || u->input(0) != y || !u->input(1) || !u->input(1)->is_constant() ||
        u->input(1)->shape.size() != 2 || u->input(1)->shape[1] != k)
      return false;
  const auto pinv = inverse(p);
  std::vector<Node*> fcs = y->users;
  std::set<Node*> done;
  for (Node* fc : fcs) {
    if (!done.insert(fc).second) continue;
    const Value* w = fc->input(1);
    const int64_t nout = w->shape[0];
    Shape wt{nout};
    wt.insert(wt.end(), ts.begin() + 1, ts.end());
    ConstantPtr c = w->constant->reshaped(wt)->transposed(pinv)->reshaped({nout, fs[1]});
    set_input(fc, 1, constant_value(g, w->name + "_nhwc", c));
  }
  Value* out = detach_output(g, f, 0);
  Value* shape = constant_value(g, out->name + "_shape", Constant::from_int64s({2}, {fs[0], fs[1]}));
  insert_before(g, f, "Reshape", f->name, {t->input(0), shape}, {out});
  return true;
}

// A Transpose that keeps the order of every dimension bigger than 1 moves no byte.
bool transpose_as_reshape(Graph& g, Node* t) {
  const auto p = perm_of(t);
  const Shape& s = t->input(0)->shape;
  int64_t last = -1;
  for (int64_t d : p) {
    if (s[size_t(d)] == 1) continue;
    if (d < last) return false;
    last = d;
  }
  const Shape& out = t->outputs[0]->shape;
  t->op_type = "Reshape";
  t->attrs.clear();
  set_input(t, 1, constant_value(g, t->outputs[0]->name + "_shape", Constant::from_int64s({int64_t(out.size())}, out)));
  return true;
}

}  // namespace

LayoutStats optimize_layout_transposes(Graph& g) {
  LayoutStats st;
  for (int round = 0; round < 10000; ++round) {
    bool changed = false;
    std::vector<Node*> schedule;
    for (const auto& n : g.nodes) schedule.push_back(n.get());
    for (Node* n : schedule) {
      if (is_dead(n)) continue;
      if (is_int8_transpose(n) && compose(g, n)) {
        st.composed++;
        changed = true;
      } else if (sink(g, n)) {
        st.sunk++;
        changed = true;
      } else if (transpose_into_weights(g, n)) {
        st.weights_permuted++;
        changed = true;
      }
    }
    g.remove_dead_nodes();
    if (!changed) break;
  }
  std::vector<Node*> schedule;
  for (const auto& n : g.nodes) schedule.push_back(n.get());
  for (Node* n : schedule)
    if (is_int8_transpose(n) && transpose_as_reshape(g, n)) st.as_reshape++;
  return st;
}

}  // namespace kiln::quant
