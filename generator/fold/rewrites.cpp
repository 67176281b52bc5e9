#include "fold/rewrites.h"

#include <algorithm>
#include <cmath>

#include "eval/evaluate.h"
#include "ir/node_input.h"
#include "util/error.h"

namespace kiln {

namespace {

bool used_elsewhere(const Value* v) { return v->users.size() != 1 || v->is_graph_output; }
bool has_const(const Node* n, size_t i) { return n->input(i) && n->input(i)->is_constant(); }
bool unused(const Value* v) { return v->users.empty() && !v->is_graph_output; }
// Rules that compare or use shapes wait until shape inference has settled them.
bool known(const Value* v) { return v != nullptr && v->shape_known; }

Value* new_constant(RewriteContext& ctx, const std::string& hint, ConstantPtr c) {
  Value* v = ctx.graph.add_value(ctx.graph.unique_name(hint), c->dtype(), c->shape());
  v->constant = ctx.pool.track(std::move(c));
  return v;
}

// Replaces `n`'s only output by `by` and lets dead-node elimination drop `n`.
bool bypass(RewriteContext& ctx, Node* n, Value* by) {
  Value* out = n->outputs[0];
  if (out->is_graph_output || by == nullptr) return false;  // the bufferizer handles output aliasing
  for (Node* u : out->users) ctx.revisit.push_back(u);
  ctx.graph.replace_all_uses(out, by);
  return true;
}

bool splat_equal(const Value* v, double x) {
  if (!v || !v->is_constant() || !v->constant->is_splat() || v->constant->num_elements() == 0) return false;
  return v->constant->as_double(0) == x;
}

// ---- identity removal -----------------------------------------------------------

// Identity, Dropout in inference (no mask used), and x*1, x+0, x-0, x/1 whose
// constant does not change the shape or dtype of x.
bool remove_identity(RewriteContext& ctx, Node* n) {
  const std::string& op = n->op_type;
  if (op == "Identity") return bypass(ctx, n, n->input(0));
  if (op == "Dropout") {
    if (n->input(2) != nullptr && !(n->input(2)->is_constant() && n->input(2)->constant->as_int64(0) == 0)) return false;
    for (size_t i = 1; i < n->outputs.size(); ++i)
      if (!unused(n->outputs[i])) return false;
    return bypass(ctx, n, n->input(0));
  }
  if (op != "Add" && op != "Mul" && op != "Sub" && op != "Div") return false;
  Value* x = n->input(0);
  Value* y = n->outputs[0];
  if (!known(x) || !known(y) || x->is_constant() || x->shape != y->shape || x->dtype != y->dtype) return false;
  double neutral = (op == "Add" || op == "Sub") ? 0.0 : 1.0;
  if (!splat_equal(n->input(1), neutral)) return false;
  return bypass(ctx, n, x);
}

// ---- canonicalization so constants meet -----------------------------------------

// c op x -> x op c for commutative ops: constants go to the right.
bool commute_constant_right(RewriteContext&, Node* n) {
  if (n->op_type != "Add" && n->op_type != "Mul") return false;
  if (n->inputs.size() != 2 || !has_const(n, 0) || has_const(n, 1)) return false;
  std::swap(n->inputs[0], n->inputs[1]);  // user lists hold n once per use: unchanged
  return true;
}

// x - c -> x + (-c): Sub of a constant joins the Add family (lazy negation).
bool sub_to_add(RewriteContext& ctx, Node* n) {
  if (n->op_type != "Sub" || n->inputs.size() != 2 || has_const(n, 0) || !has_const(n, 1)) return false;
  const ConstantPtr& c = n->input(1)->constant;
  if (c->kind() == WideKind::UInt) return false;  // -c has no unsigned value
  ConstantPtr neg = c->mapped(c->dtype(), [k = c->kind()](WideNum* d, int64_t m) {
    for (int64_t i = 0; i < m; ++i) {
      if (k == WideKind::Float) d[i].f = -d[i].f;
      else d[i].i = int64_t(0 - uint64_t(d[i].i));
    }
  }, "neg");
  Value* nv = new_constant(ctx, n->input(1)->name + "_neg", neg);
  n->op_type = "Add";
  set_input(n, 1, nv);
  ctx.revisit.push_back(n);
  return true;
}

// (x op c1) op c2 -> x op (c1 op c2) for op in {Add, Mul}: the constants fold now.
bool reassociate(RewriteContext& ctx, Node* n) {
  const std::string& op = n->op_type;
  if ((op != "Add" && op != "Mul") || n->inputs.size() != 2 || !has_const(n, 1) || has_const(n, 0)) return false;
  Value* inner_out = n->input(0);
  Node* inner = inner_out->producer;
  if (!inner || inner->op_type != op || inner->inputs.size() != 2 || !has_const(inner, 1) || has_const(inner, 0))
    return false;
  if (used_elsewhere(inner_out) || inner_out->dtype != n->outputs[0]->dtype) return false;
  Value* x = inner->input(0);
  if (!known(x) || !known(n->outputs[0])) return false;
  const ConstantPtr &c1 = inner->input(1)->constant, &c2 = n->input(1)->constant;
  Shape cs = broadcast_shapes(c1->shape(), c2->shape(), n->describe());
  // x op c12 must have the same shape as before (it does: broadcasting is associative).
  if (broadcast_shapes(x->shape, cs, n->describe()) != n->outputs[0]->shape) return false;
  ConstantPtr c12 = fold_binary(op, c1, c2, n->outputs[0]->dtype, cs);
  Value* nv = new_constant(ctx, n->name + "_c", c12);
  set_input(n, 0, x);
  set_input(n, 1, nv);
  ctx.revisit.push_back(n);
  return true;
}

// ---- fusion into weights -----------------------------------------------------------

// Per-output-channel factor `a` (C values, wide) and shift `b` folded into a Conv:
// W'[oc] = W[oc] * a[oc], bias'[oc] = bias[oc] * a[oc] + b[oc]. The new weight is a
// lazy transform of the old one (no copy until emission, one rounding).
bool scale_conv(RewriteContext& ctx, Node* conv, const std::vector<double>& a, const std::vector<double>& b) {
  Value* w = conv->input(1);
  Value* bias = conv->input(2);
  int64_t c_out = w->shape[0];
  Shape s(w->shape.size(), 1);
  s[0] = c_out;
  std::vector<WideNum> aw(static_cast<size_t>(c_out)), bw(static_cast<size_t>(c_out));
  std::vector<WideNum> old_b = bias ? bias->constant->wide() : std::vector<WideNum>(size_t(c_out), WideNum{0.0});
  for (int64_t oc = 0; oc < c_out; ++oc) {
    aw[size_t(oc)].f = a[size_t(oc)];
    bw[size_t(oc)].f = old_b[size_t(oc)].f * a[size_t(oc)] + b[size_t(oc)];
  }
  ConstantPtr scale = Constant::from_wide(DType::Float64, s, aw);
  ConstantPtr nw = fold_binary("Mul", w->constant, scale, w->dtype, w->shape);
  set_input(conv, 1, new_constant(ctx, w->name + "_fused", nw));
  set_input(conv, 2, new_constant(ctx, conv->name + "_bias_fused", Constant::from_wide(w->dtype, {c_out}, bw)));
  return true;
}

bool conv_with_const_weights(const Node* conv) {
  if (!conv || conv->op_type != "Conv") return false;
  const Value* w = conv->input(1);
  const Value* b = conv->input(2);
  return known(conv->outputs[0]) && w && w->is_constant() && wide_kind(w->dtype) == WideKind::Float && (!b || b->is_constant()) &&
         w->shape.size() >= 3;
}

// The node that consumes `x` is replaced: the producer writes the consumer's output.
void retarget_output(RewriteContext& ctx, Node* producer, Node* consumer) {
  Value* x = producer->outputs[0];
  Value* y = consumer->outputs[0];
  if (y->is_graph_output) {
    // The graph output keeps its name: the producer now writes y, the consumer is
    // left with a private unused output and dies.
    set_input(consumer, 0, nullptr);
    producer->outputs[0] = y;
    y->producer = producer;
    x->producer = nullptr;
    consumer->outputs[0] = ctx.graph.add_value(ctx.graph.unique_name(y->name + "_dead"), y->dtype, y->shape);
    consumer->outputs[0]->producer = consumer;
  } else {
    for (Node* u : y->users) ctx.revisit.push_back(u);
    ctx.graph.replace_all_uses(y, x);
  }
  ctx.revisit.push_back(producer);
}

// BatchNormalization (inference) parameters as a per-channel affine y = a*x + b.
bool batchnorm_affine(const Node* bn, int64_t channels, std::vector<double>* a, std::vector<double>* b) {
  if (bn->op_type != "BatchNormalization" || bn->inputs.size() != 5) return false;
  for (size_t i = 1; i < bn->outputs.size(); ++i)
    if (!unused(bn->outputs[i])) return false;
  if (bn->attr_int("training_mode", 0) != 0) return false;
  for (size_t i = 1; i < 5; ++i)
    if (!has_const(bn, i) || bn->input(i)->num_elements() != channels) return false;
  auto scale = bn->input(1)->constant->to_doubles(), beta = bn->input(2)->constant->to_doubles();
  auto mean = bn->input(3)->constant->to_doubles(), var = bn->input(4)->constant->to_doubles();
  const double eps = bn->attr_float("epsilon", 1e-5);
  a->resize(size_t(channels));
  b->resize(size_t(channels));
  for (int64_t c = 0; c < channels; ++c) {
    (*a)[size_t(c)] = scale[size_t(c)] / std::sqrt(var[size_t(c)] + eps);
    (*b)[size_t(c)] = beta[size_t(c)] - mean[size_t(c)] * (*a)[size_t(c)];
  }
  return true;
}

// Conv -> BatchNormalization: the normalization goes into the weights and bias.
bool fold_batchnorm_into_conv(RewriteContext& ctx, Node* bn) {
  if (bn->op_type != "BatchNormalization" || !bn->input(0)) return false;
  Value* x = bn->input(0);
  Node* conv = x->producer;
  if (!conv_with_const_weights(conv) || used_elsewhere(x)) return false;
  std::vector<double> a, b;
  if (!batchnorm_affine(bn, conv->input(1)->shape[0], &a, &b)) return false;
  scale_conv(ctx, conv, a, b);
  retarget_output(ctx, conv, bn);
  return true;
}

// Gemm -> BatchNormalization (over Gemm's N columns): scale B's columns, new C.
bool fold_batchnorm_into_gemm(RewriteContext& ctx, Node* bn) {
  if (bn->op_type != "BatchNormalization" || !bn->input(0)) return false;
  Value* x = bn->input(0);
  Node* gemm = x->producer;
  if (!gemm || gemm->op_type != "Gemm" || used_elsewhere(x) || !has_const(gemm, 1)) return false;
  if (gemm->input(2) && !has_const(gemm, 2)) return false;
  Value* w = gemm->input(1);
  if (wide_kind(w->dtype) != WideKind::Float || !known(x) || x->shape.size() != 2) return false;
  int64_t N = x->shape[1];
  std::vector<double> a, b;
  if (!batchnorm_affine(bn, N, &a, &b)) return false;
  bool trans_b = gemm->attr_int("transB", 0) != 0;
  double beta = gemm->attr_float("beta", 1.0);
  // C must be per column (or absent/scalar) to stay a vector.
  std::vector<double> c(size_t(N), 0.0);
  if (Value* cv = gemm->input(2)) {
    const Shape& cs = cv->shape;
    if (shape_elements(cs) != 1 && shape_elements(cs) != N) return false;
    if (shape_elements(cs) == N && !cs.empty() && cs.back() != N) return false;
    auto cd = cv->constant->to_doubles();
    for (int64_t j = 0; j < N; ++j) c[size_t(j)] = cd.size() == 1 ? cd[0] : cd[size_t(j)];
  }
  Shape s = trans_b ? Shape{N, 1} : Shape{1, N};
  std::vector<WideNum> aw(static_cast<size_t>(N)), cw(static_cast<size_t>(N));
  for (int64_t j = 0; j < N; ++j) {
    aw[size_t(j)].f = a[size_t(j)];
    cw[size_t(j)].f = beta * c[size_t(j)] * a[size_t(j)] + b[size_t(j)];
  }
  ConstantPtr nw = fold_binary("Mul", w->constant, Constant::from_wide(DType::Float64, s, aw), w->dtype, w->shape);
  set_input(gemm, 1, new_constant(ctx, w->name + "_fused", nw));
  set_input(gemm, 2, new_constant(ctx, gemm->name + "_bias_fused", Constant::from_wide(w->dtype, {N}, cw)));
  gemm->attrs["beta"] = 1.0;
  retarget_output(ctx, gemm, bn);
  return true;
}

// Conv -> Mul/Add by a per-output-channel constant ([C,1,1], [1,C,1,1], scalar):
// the Mul scales weights and bias, the Add shifts the bias.
bool fold_channel_affine_into_conv(RewriteContext& ctx, Node* n) {
  if ((n->op_type != "Mul" && n->op_type != "Add") || n->inputs.size() != 2 || !has_const(n, 1)) return false;
  Value* x = n->input(0);
  Node* conv = x->producer;
  if (!conv_with_const_weights(conv) || used_elsewhere(x)) return false;
  if (!known(n->outputs[0]) || n->outputs[0]->shape != x->shape || n->outputs[0]->dtype != x->dtype) return false;
  int64_t C = conv->input(1)->shape[0];
  const ConstantPtr& k = n->input(1)->constant;
  const Shape& ks = k->shape();
  size_t r = x->shape.size();
  if (ks.size() > r) return false;
  for (size_t i = 0; i < ks.size(); ++i) {  // right-aligned: only the channel axis (1) may be > 1
    size_t axis = r - ks.size() + i;
    if (ks[i] != 1 && !(axis == 1 && ks[i] == C)) return false;
  }
  if (k->kind() != WideKind::Float) return false;
  auto kv = k->wide();  // one value, or C values along the channel axis
  std::vector<double> per(static_cast<size_t>(C));
  for (int64_t c = 0; c < C; ++c) per[size_t(c)] = kv.size() == 1 ? kv[0].f : kv[size_t(c)].f;
  std::vector<double> a(size_t(C), 1.0), b(size_t(C), 0.0);
  if (n->op_type == "Mul") a = per;
  else b = per;
  scale_conv(ctx, conv, a, b);
  retarget_output(ctx, conv, n);
  return true;
}

// ---- layout ------------------------------------------------------------------------

std::vector<int64_t> perm_of(const Node* t) {
  auto p = t->attr_ints("perm");
  if (p.empty()) {
    size_t r = t->input(0)->shape.size();
    for (size_t i = 0; i < r; ++i) p.push_back(int64_t(r - 1 - i));
  }
  return p;
}

// Transpose(Transpose(x, p1), p2) -> Transpose(x, p1[p2]); an identity perm goes away.
bool merge_transposes(RewriteContext& ctx, Node* n) {
  if (n->op_type != "Transpose" || !known(n->input(0))) return false;
  auto p2 = perm_of(n);
  bool identity = true;
  for (size_t i = 0; i < p2.size(); ++i) identity &= p2[i] == int64_t(i);
  if (identity) return bypass(ctx, n, n->input(0));
  Node* inner = n->input(0)->producer;
  if (!inner || inner->op_type != "Transpose" || used_elsewhere(n->input(0)) || !known(inner->input(0))) return false;
  auto p1 = perm_of(inner);
  std::vector<int64_t> q(p2.size());
  for (size_t i = 0; i < p2.size(); ++i) q[i] = p1[size_t(p2[i])];
  set_input(n, 0, inner->input(0));
  n->attrs["perm"] = q;
  ctx.revisit.push_back(n);
  return true;
}

// Reshape of a reshape-like op -> one Reshape of the original; a Reshape to the
// input's own shape goes away.
bool merge_reshapes(RewriteContext& ctx, Node* n) {
  if (n->op_type != "Reshape" || !n->input(0)) return false;
  Value* x = n->input(0);
  if (known(x) && known(n->outputs[0]) && x->shape == n->outputs[0]->shape && x->dtype == n->outputs[0]->dtype) return bypass(ctx, n, x);
  Node* inner = x->producer;
  if (!inner || used_elsewhere(x)) return false;
  const std::string& iop = inner->op_type;
  if (iop != "Reshape" && iop != "Flatten" && iop != "Squeeze" && iop != "Unsqueeze") return false;
  if (!inner->input(0)) return false;
  set_input(n, 0, inner->input(0));
  ctx.revisit.push_back(n);
  return true;
}

struct Rule {
  const char* name;
  bool (*fn)(RewriteContext&, Node*);
};

const std::vector<Rule>& rules() {
  static const std::vector<Rule> r = {
      {"identity-removal", remove_identity},
      {"commute-constant-right", commute_constant_right},
      {"sub-to-add", sub_to_add},
      {"reassociate", reassociate},
      {"conv-batchnorm", fold_batchnorm_into_conv},
      {"gemm-batchnorm", fold_batchnorm_into_gemm},
      {"conv-channel-affine", fold_channel_affine_into_conv},
      {"transpose-merge", merge_transposes},
      {"reshape-merge", merge_reshapes},
  };
  return r;
}

}  // namespace

std::string apply_rewrites(RewriteContext& ctx, Node* n) {
  if (!n->domain.empty() && n->domain != "ai.onnx") return "";
  for (const auto& r : rules())
    if (r.fn(ctx, n)) return r.name;
  return "";
}

const std::vector<std::string>& rewrite_rule_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& r : rules()) v.push_back(r.name);
    v.push_back("dead-node");
    return v;
  }();
  return names;
}

}  // namespace kiln
