#include "quant/qdq_rewrite.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "ir/kiln_ops.h"
#include "quant/boundary_layout.h"
#include "quant/graph_edit.h"
#include "quant/layout.h"
#include "quant/onnx_lookup.h"
#include "quant/qdq_patterns.h"
#include "util/error.h"
#include "util/quoted.h"

namespace kiln::quant {

namespace {

bool is_data_movement(const Node* n) {
  static const std::set<std::string> ops{"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Transpose", "Identity"};
  return is_default_domain(n) && ops.count(n->op_type);
}

bool is_unary_function(const Node* n) {
  static const std::set<std::string> ops{"Relu",      "Clip",      "Sigmoid", "Tanh", "HardSigmoid",
                                         "HardSwish", "LeakyRelu", "Elu",     "Selu", "Neg", "Abs"};
  return is_default_domain(n) && ops.count(n->op_type);
}

// Ops the rewrite can turn into integer ops (given the right quantization).
bool has_integer_form(const Node* n) {
  static const std::set<std::string> ops{"Conv",    "Gemm",    "MatMul",      "Add",
                                         "Sub",     "Mul",     "AveragePool", "MaxPool",
                                         "GlobalAveragePool", "GlobalMaxPool", "Softmax", "Concat", "Pad"};
  return n && is_default_domain(n) && (ops.count(n->op_type) || is_unary_function(n) || is_data_movement(n));
}

ConstantPtr shifted_to_int8(const Constant& u8) {
  std::vector<double> v(size_t(u8.num_elements()));
  for (int64_t i = 0; i < u8.num_elements(); ++i) v[size_t(i)] = double(u8.as_int64(i) - 128);
  return Constant::from_doubles(DType::Int8, u8.shape(), v);
}

ConstantPtr int32_constant(const std::vector<int32_t>& v) {
  return Constant::from_doubles(DType::Int32, {int64_t(v.size())}, std::vector<double>(v.begin(), v.end()));
}

// Explicit [top, left, bottom, right] pads of a 2-D conv / pool from pads or auto_pad.
std::optional<std::vector<int64_t>> spatial_pads(const Node& n, const Shape& in_hw, const std::vector<int64_t>& k,
                                                 const std::vector<int64_t>& s, const std::vector<int64_t>& d,
                                                 std::string* why) {
  for (size_t i = 0; i < 2; ++i)
    if (s[i] < 1 || d[i] < 1 || k[i] < 1) return fail(why, "a stride, dilation or kernel size is not positive"), std::nullopt;
  const std::string auto_pad = n.attr_string("auto_pad", "NOTSET");
  if (auto_pad == "NOTSET") {
    auto p = n.attr_ints("pads", {0, 0, 0, 0});
    if (p.size() != 4) return fail(why, "pads are not 2-D"), std::nullopt;
    for (int64_t v : p)
      if (v < 0) return fail(why, "negative pads have no integer form"), std::nullopt;
    return p;
  }
  if (auto_pad == "VALID") return std::vector<int64_t>{0, 0, 0, 0};
  if (auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER")
    return fail(why, "auto_pad " + in_quotes(auto_pad) + " is not supported"), std::nullopt;
  std::vector<int64_t> p(4);
  for (size_t i = 0; i < 2; ++i) {
    const int64_t out = (in_hw[i] + s[i] - 1) / s[i];
    const int64_t total = std::max<int64_t>(0, (out - 1) * s[i] + (k[i] - 1) * d[i] + 1 - in_hw[i]);
    const int64_t begin = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
    p[i] = begin;
    p[i + 2] = total - begin;
  }
  return p;
}

// The requantization attributes of an integer op with weights: input x, output
// `out`, one scale per output channel (or one).
ops::QuantIO quant_io(const QuantTensor& x, const QuantOutput& out, const std::vector<double>& requant) {
  ops::QuantIO q;
  q.x_zero_point = x.params.zero_point;
  q.y_zero_point = out.params.zero_point;
  q.act_min = out.act_min;
  q.act_max = out.act_max;
  q.requant_scale = requant;
  return q;
}

// The output size of a 2-D window op, rounding down.
int64_t window_out(int64_t in, int64_t pb, int64_t pe, int64_t k, int64_t s, int64_t d) {
  return (in + pb + pe - ((k - 1) * d + 1)) / s + 1;
}

class Rewriter {
 public:
  Rewriter(Graph& g, const QdqOptions& o) : g_(g), o_(o) {}

  QdqReport run() {
    QdqReport rep;
    for (const auto& n : g_.nodes)
      if (is_default_domain(n.get()) && (n->op_type == "QuantizeLinear" || n->op_type == "DequantizeLinear" ||
                                      n->op_type == "QLinearConv" || n->op_type == "QLinearMatMul"))
        rep.quantized_model = true;
    if (!rep.quantized_model) return rep;

    normalize_uint8();
    std::vector<Node*> schedule;
    for (const auto& n : g_.nodes) schedule.push_back(n.get());
    for (Node* n : schedule) {
      if (is_dead(n)) continue;
      std::string why;
      inserted_.clear();
      detached_.clear();
      const bool done = rewrite(n, &why) && accepted(&why);
      if (!done && !why.empty()) reasons_[n] = why;
    }
    g_.remove_dead_nodes();
    optimize_layout_transposes(g_);
    rep.absorbed_transposes = absorb_boundary_transposes(g_, o_.refuses);
    g_.remove_dead_nodes();
    g_.remove_dead_values();
    report(rep);
    return rep;
  }

 private:
  Graph& g_;
  const QdqOptions& o_;
  std::map<const Node*, std::string> reasons_;
  // The edits of the group being rewritten, so that it can be undone when the
  // lowering of its integer op refuses the parameters (QdqOptions::refuses).
  std::vector<Node*> inserted_;
  std::vector<std::pair<Node*, Value*>> detached_;  // anchor, its original output 0

  Node* insert(const Node* anchor, const std::string& op, const std::string& name, std::vector<Value*> ins,
               std::vector<Value*> outs) {
    Node* n = insert_before(g_, anchor, op, name, std::move(ins), std::move(outs));
    inserted_.push_back(n);
    return n;
  }
  Value* detach(Node* anchor, size_t i) {
    Value* v = detach_output(g_, anchor, i);
    detached_.push_back({anchor, v});
    return v;
  }
  void rollback() {
    for (auto it = detached_.rbegin(); it != detached_.rend(); ++it) {
      auto [anchor, v] = *it;
      for (Node* n : inserted_)
        for (auto& o : n->outputs)
          if (o == v) o = g_.add_value(g_.unique_name(v->name + "_undone"), v->dtype, v->shape), o->producer = n;
      anchor->outputs[0]->producer = nullptr;
      anchor->outputs[0] = v;
      v->producer = anchor;
    }
    for (auto it = inserted_.rbegin(); it != inserted_.rend(); ++it) g_.erase_node(*it);
    inserted_.clear();
    detached_.clear();
  }
  // Asks the lowering of every integer op the group made whether it takes it.
  bool accepted(std::string* why) {
    if (!o_.refuses) return true;
    for (Node* n : inserted_) {
      if (n->op_type.rfind("KilnQ", 0) != 0) continue;
      if (auto e = o_.refuses(*n)) {
        rollback();
        return fail(why, "its integer kernel does not take it: " + *e);
      }
    }
    return true;
  }

  bool kernel(const std::string& op, std::string* why) {
    if (!o_.has_kernel || o_.has_kernel(op)) return true;
    return fail(why, "no integer kernel for " + op + " in this build");
  }

  Value* int8_value(const std::string& hint, Shape s) { return g_.add_value(g_.unique_name(hint), DType::Int8, s); }
  Value* int8_scalar(const std::string& hint, int64_t v) {
    return constant_value(g_, hint, Constant::from_doubles(DType::Int8, {}, {double(v)}));
  }
  Value* int64s(const std::string& hint, const std::vector<int64_t>& v) {
    return constant_value(g_, hint, Constant::from_int64s({int64_t(v.size())}, v));
  }

  // ---- 1. uint8 -> int8 ------------------------------------------------------

  // The int8 zero point of a uint8 one, as a new constant; an absent one (0) becomes
  // -128 in the shape of the scale (a per-axis scale needs a zero point per slice).
  Value* shifted_zero_point(const Value* zp, const Value* scale, const std::string& hint) {
    if (!zp) {
      WideNum v;
      v.i = -128;
      return constant_value(g_, hint, Constant::splat(DType::Int8, scale->shape, v));
    }
    return constant_value(g_, hint, shifted_to_int8(*zp->constant));
  }
  static bool const_or_absent(const Value* v) { return !v || v->is_constant(); }
  // A boundary pair for a uint8 tensor is worth it only next to an op that may
  // become an integer op (through Relu / Clip for the result of one).
  static bool feeds_integer_form(const Node* dq) {
    const Value* f = dq->outputs[0];
    if (f->is_graph_output) return false;
    for (const Node* u : f->users)
      if (has_integer_form(u)) return true;
    return false;
  }
  static bool fed_by_integer_form(const Node* q) {
    const Node* p = q->input(0)->producer;
    while (p && (is_op(p, "Relu") || is_op(p, "Clip"))) p = p->input(0)->producer;
    return has_integer_form(p);
  }

  void normalize_uint8() {
    std::vector<Node*> schedule;
    for (const auto& n : g_.nodes) schedule.push_back(n.get());
    for (Node* n : schedule) {
      if (is_op(n, "DequantizeLinear") && n->input(0)->dtype == DType::UInt8 && const_or_absent(n->input(2)) &&
          n->input(1)->is_constant()) {
        Value* x = n->input(0);
        if (x->is_constant()) {
          set_input(n, 0, constant_value(g_, x->name + "_s8", shifted_to_int8(*x->constant)));
          set_input(n, 2, shifted_zero_point(n->input(2), n->input(1), n->name + "_zp_s8"));
        } else if (x->is_graph_input && n->input(1)->constant->num_elements() == 1 && feeds_integer_form(n)) {
          // The float boundary: DQ(uint8) -> Q(int8, zero point - 128), exact.
          Value* zp8 = shifted_zero_point(n->input(2), n->input(1), n->name + "_zp_s8");
          Value* f = g_.add_value(g_.unique_name(x->name + "_real"), DType::Float32, x->shape);
          Value* s8 = g_.add_value(g_.unique_name(x->name + "_s8"), DType::Int8, x->shape);
          insert(n, "DequantizeLinear", x->name + "_dequantize", {x, n->input(1), n->input(2)}, {f});
          insert(n, "QuantizeLinear", x->name + "_to_int8", {f, n->input(1), zp8}, {s8});
          set_input(n, 0, s8);
          set_input(n, 2, zp8);
        }
      } else if (is_qlinear(n)) {
        normalize_qlinear_uint8(n);
      } else if (is_op(n, "QuantizeLinear") && n->outputs[0]->dtype == DType::UInt8 && const_or_absent(n->input(2)) &&
                 n->input(1) && n->input(1)->is_constant() && n->input(1)->constant->num_elements() == 1) {
        Value* y = n->outputs[0];
        std::vector<Node*> readers = y->users;
        bool all_dq = true;
        for (Node* u : readers) all_dq &= reads_quantized(u, y);
        Value* zp8 = shifted_zero_point(n->input(2), n->input(1), n->name + "_zp_s8");
        Value* y8 = y;
        if (all_dq && !y->is_graph_output) {
          y->dtype = DType::Int8;
          set_input(n, 2, zp8);
        } else if (!fed_by_integer_form(n)) {
          continue;
        } else {
          // y stays uint8 for its other readers: an int8 Q next to it, and the
          // uint8 Q reads that back through a DQ (a float pair at the boundary).
          y8 = g_.add_value(g_.unique_name(y->name + "_s8"), DType::Int8, y->shape);
          Value* f = g_.add_value(g_.unique_name(y->name + "_real"), DType::Float32, y->shape);
          insert(n, "QuantizeLinear", n->name + "_int8", {n->input(0), n->input(1), zp8}, {y8});
          insert(n, "DequantizeLinear", n->name + "_real", {y8, n->input(1), zp8}, {f});
          set_input(n, 0, f);
        }
        retarget_readers(readers, y, y8);
      }
    }
  }

  static bool is_qlinear(const Node* n) { return is_op(n, "QLinearConv") || is_op(n, "QLinearMatMul"); }
  // `u` reads the quantized tensor `y` as a DQ or as the data input of a QLinear op,
  // with a constant (or absent) zero point at input 2: it can follow y to int8.
  static bool reads_quantized(const Node* u, const Value* y) {
    return (is_op(u, "DequantizeLinear") || is_qlinear(u)) && u->input(0) == y && const_or_absent(u->input(2));
  }
  // Readers of uint8 `y` that can read its int8 version `y8` (zero point - 128) do so.
  void retarget_readers(const std::vector<Node*>& readers, const Value* y, Value* y8) {
    for (Node* u : readers) {
      if (!reads_quantized(u, y)) continue;
      if (y8 != y) set_input(u, 0, y8);
      set_input(u, 2, shifted_zero_point(u->input(2), u->input(1), u->name + "_zp_s8"));
    }
  }

  // QLinearConv / QLinearMatMul on uint8: constant uint8 weights become int8 (zero
  // point - 128), a uint8 graph input gets the float boundary pair, and a uint8 result
  // becomes int8 for the readers that can follow (a boundary pair back to uint8 for a
  // graph output or other readers). The op itself takes any mix of int8 and uint8.
  void normalize_qlinear_uint8(Node* n) {
    Value* w = n->input(3);
    if (!w || !w->is_constant()) return;  // runtime weights: the op keeps its own kernel, untouched
    if (w->dtype == DType::UInt8 && const_or_absent(n->input(5))) {
      set_input(n, 3, constant_value(g_, w->name + "_s8", shifted_to_int8(*w->constant)));
      set_input(n, 5, shifted_zero_point(n->input(5), n->input(4), n->name + "_w_zp_s8"));
    }
    Value* x = n->input(0);
    if (x->dtype == DType::UInt8 && x->is_graph_input && const_or_absent(n->input(2)) && n->input(1)->is_constant()) {
      Value* zp8 = shifted_zero_point(n->input(2), n->input(1), n->name + "_x_zp_s8");
      Value* f = g_.add_value(g_.unique_name(x->name + "_real"), DType::Float32, x->shape);
      Value* s8 = g_.add_value(g_.unique_name(x->name + "_s8"), DType::Int8, x->shape);
      insert(n, "DequantizeLinear", x->name + "_dequantize", {x, n->input(1), n->input(2)}, {f});
      insert(n, "QuantizeLinear", x->name + "_to_int8", {f, n->input(1), zp8}, {s8});
      set_input(n, 0, s8);
      set_input(n, 2, zp8);
    }
    Value* y = n->outputs[0];
    if (y->dtype != DType::UInt8 || !const_or_absent(n->input(7)) || !n->input(6)->is_constant()) return;
    std::vector<Node*> readers = y->users;
    bool all_ok = !y->is_graph_output;
    for (Node* u : readers) all_ok &= reads_quantized(u, y);
    Value* zp8 = shifted_zero_point(n->input(7), n->input(6), n->name + "_y_zp_s8");
    Value* y8 = y;
    if (all_ok) {
      y->dtype = DType::Int8;
    } else {
      y8 = g_.add_value(g_.unique_name(y->name + "_s8"), DType::Int8, y->shape);
      Value* f = g_.add_value(g_.unique_name(y->name + "_real"), DType::Float32, y->shape);
      n->outputs[0] = y8;
      y8->producer = n;
      y->producer = nullptr;
      Node* q = insert_after(g_, n, "QuantizeLinear", n->name + "_to_uint8", {f, n->input(6), n->input(7)}, {y});
      insert_before(g_, q, "DequantizeLinear", n->name + "_real", {y8, n->input(6), zp8}, {f});
    }
    set_input(n, 7, zp8);
    retarget_readers(readers, y, y8);
  }

  // ---- 2. and 3. one node ----------------------------------------------------

  bool rewrite(Node* n, std::string* why) {
    if (!is_default_domain(n)) return false;
    const std::string& op = n->op_type;
    if (op == "DequantizeLinear") return false;
    if (op == "QuantizeLinear") return requantize(n, why);
    if (is_data_movement(n)) return move_dequantize_forward(n);
    if (op == "Conv") return conv(n, why);
    if (op == "QLinearConv") return qlinear_conv(n, why);
    if (op == "Gemm" || op == "MatMul") return fully_connected(n, why);
    if (op == "QLinearMatMul") return qlinear_matmul(n, why);
    if (op == "Add" || op == "Sub" || op == "Mul") return binary(n, why);
    if (op == "AveragePool" || op == "MaxPool" || op == "GlobalAveragePool" || op == "GlobalMaxPool")
      return pool(n, why);
    if (op == "Softmax") return softmax(n, why);
    if (op == "Concat") return concat(n, why);
    if (op == "Pad") return pad(n, why);
    if (is_unary_function(n)) return lookup(n, why);
    return fail(why, "no integer form of " + op);
  }

  // The integer op that replaces a group: it takes over output 0 of `anchor` (the
  // group's QuantizeLinear, or the QLinear* op itself), placed just before it.
  Node* replace_group(Node* anchor, const std::string& op, const std::string& name, std::vector<Value*> ins) {
    Value* y = detach(anchor, 0);
    return insert(anchor, op, name, std::move(ins), {y});
  }

  // NCHW int8 -> NHWC int8, placed before `anchor`.
  Value* to_nhwc(Node* anchor, Value* x) {
    const Shape& s = x->shape;
    Value* t = int8_value(x->name + "_nhwc", {s[0], s[2], s[3], s[1]});
    Node* tr = insert(anchor, "Transpose", x->name + "_to_nhwc", {x}, {t});
    tr->attrs["perm"] = kToNhwc;
    return t;
  }
  // A fresh NHWC value for the NCHW output of `anchor`.
  Value* nhwc_of_output(Node* anchor) {
    const Shape& s = anchor->outputs[0]->shape;
    return int8_value(anchor->outputs[0]->name + "_nhwc", {s[0], s[2], s[3], s[1]});
  }
  // The NHWC result `y` becomes output 0 of `anchor` (NCHW).
  void from_nhwc(Node* anchor, Value* y) {
    Value* out = detach(anchor, 0);
    Node* tr = insert(anchor, "Transpose", out->name + "_to_nchw", {y}, {out});
    tr->attrs["perm"] = kToNchw;
  }

  Value* lookup_table_value(const std::string& hint, const RealFunction& f, const QuantParams& in,
                            const QuantParams& out, int32_t lo, int32_t hi) {
    ConstantPtr t = onnx_lookup_table(f, in, out);
    if (lo > -128 || hi < 127) {
      std::vector<double> v(256);
      for (int64_t i = 0; i < 256; ++i) v[size_t(i)] = double(std::clamp<int64_t>(t->as_int64(i), lo, hi));
      t = Constant::from_doubles(DType::Int8, {256}, v);
    }
    return constant_value(g_, hint, t);
  }

  // Q(DQ(x)): the same quantization is x itself; another one is a requantizing lookup.
  bool requantize(Node* q, std::string* why) {
    const Node* dq = q->input(0)->producer;
    if (!is_op(dq, "DequantizeLinear")) return false;  // the end of an op's group: judged with the op
    auto in = dequantized(q->input(0), why);
    if (!in) return false;
    if (q->outputs[0]->dtype != DType::Int8) return fail(why, "it quantizes to " + dtype_name(q->outputs[0]->dtype));
    std::string w;
    auto out = per_tensor_params(q->input(1), q->input(2), &w);
    if (!out) return fail(why, w);
    Value* y = q->outputs[0];
    if (*out == in->params) {
      if (!y->is_graph_output) {
        g_.replace_all_uses(y, in->q);
        return true;
      }
      replace_group(q, "Identity", q->name, {in->q});
      return true;
    }
    if (!kernel("KilnQLookup", why)) return false;
    Value* table = lookup_table_value(q->name + "_table", [](float x) { return x; }, in->params, *out, -128, 127);
    replace_group(q, "KilnQLookup", q->name, {in->q, table});
    return true;
  }

  // DQ -> Reshape (or another data movement op) becomes Reshape on the int8 tensor
  // -> DQ: exact for a per-tensor quantization, and it brings the DQ next to the
  // op that reads the result.
  bool move_dequantize_forward(Node* n) {
    Node* dq = n->input(0) ? n->input(0)->producer : nullptr;
    if (!is_op(dq, "DequantizeLinear") || n->outputs.size() != 1) return false;
    std::string why;
    auto in = dequantized(n->input(0), &why);
    if (!in) return false;
    std::vector<Value*> ins = n->inputs;
    ins[0] = in->q;
    Value* t = int8_value(n->outputs[0]->name + "_q", n->outputs[0]->shape);
    Node* moved = insert(n, n->op_type, n->name, ins, {t});
    moved->attrs = n->attrs;
    moved->opset = n->opset;
    Value* y = detach(n, 0);
    Node* d = insert(n, "DequantizeLinear", dq->name, {t, dq->input(1), dq->input(2)}, {y});
    d->opset = dq->opset;
    return true;
  }

  // ---- conv ------------------------------------------------------------------

  bool conv(Node* n, std::string* why) {
    if (n->input(0)->shape.size() != 4) return fail(why, "only 2-D convolution has an integer form");
    auto x = dequantized(n->input(0), why);
    if (!x) return false;
    auto w = dequantized_weights(n->input(1), 0, why);
    if (!w) return false;
    if (w->q->shape().size() != 4) return fail(why, "only 2-D convolution has an integer form");
    auto out = quantized_output(n->outputs[0], why);
    if (!out) return false;
    const int64_t cout = w->q->shape()[0];
    auto bias = accumulator_bias(n->input(2), x->params.scale, *w, cout, why);
    if (!bias) return false;
    return emit_conv(*n, *x, *w, *bias, *out, out->quantize, why);
  }

  bool qlinear_conv(Node* n, std::string* why) {
    if (n->input(0)->shape.size() != 4) return fail(why, "only 2-D convolution has an integer form");
    if (n->input(0)->dtype != DType::Int8 || n->outputs[0]->dtype != DType::Int8)
      return fail(why, "its tensors are not int8");
    std::string w_why;
    auto xp = per_tensor_params(n->input(1), n->input(2), &w_why);
    if (!xp) return fail(why, "input: " + w_why);
    auto yp = per_tensor_params(n->input(6), n->input(7), &w_why);
    if (!yp) return fail(why, "output: " + w_why);
    auto w = constant_weights(n->input(3), n->input(4), n->input(5), 0, why);
    if (!w) return false;
    std::vector<int32_t> bias;
    if (const Value* b = n->input(8)) {
      if (!b->is_constant()) return fail(why, "the bias is not constant");
      for (int64_t v : b->constant->to_int64s()) bias.push_back(int32_t(v));
    }
    QuantOutput out;
    out.params = *yp;
    return emit_conv(*n, QuantTensor{n->input(0), *xp}, *w, bias, out, n, why);
  }

  bool emit_conv(const Node& n, const QuantTensor& x, const QuantWeights& w, const std::vector<int32_t>& bias,
                 const QuantOutput& out, Node* anchor, std::string* why) {
    const Shape& xs = x.q->shape;
    const Shape& ws = w.q->shape();
    const Shape& ys = anchor->outputs[0]->shape;
    if (ws.size() != 4 || ys.size() != 4) return fail(why, "only 2-D convolution has an integer form");
    const int64_t c = xs[1], cout = ws[0], kh = ws[2], kw = ws[3];
    const int64_t group = n.attr_int("group", 1);
    if (group < 1 || c % group != 0 || cout % group != 0 || ws[1] != c / group)
      return fail(why, "its weights " + shape_str(ws) + " do not match the input " + shape_str(xs));
    const auto strides = n.attr_ints("strides", {1, 1});
    const auto dil = n.attr_ints("dilations", {1, 1});
    if (strides.size() != 2 || dil.size() != 2) return fail(why, "strides / dilations are not 2-D");
    auto pads = spatial_pads(n, {xs[2], xs[3]}, {kh, kw}, strides, dil, why);
    if (!pads) return false;
    if (window_out(xs[2], (*pads)[0], (*pads)[2], kh, strides[0], dil[0]) != ys[2] ||
        window_out(xs[3], (*pads)[1], (*pads)[3], kw, strides[1], dil[1]) != ys[3] || ys[1] != cout)
      return fail(why, "its output shape " + shape_str(ys) + " does not follow from its attributes");
    const bool depthwise = group == c && group > 1;
    const std::string op = depthwise ? "KilnQDepthwiseConv2D" : "KilnQConv2D";
    if (!kernel(op, why)) return false;

    std::vector<double> requant;
    for (float s : w.scales) requant.push_back(double(x.params.scale) * double(s) / double(out.params.scale));
    // ONNX OIHW -> the contract's OHWI (conv) or [KH,KW,Cout] (depthwise), once, here.
    ConstantPtr wq = depthwise ? w.q->reshaped({cout, kh, kw})->transposed({1, 2, 0}) : w.q->transposed({0, 2, 3, 1});
    Value* wv = constant_value(g_, n.name + "_w_" + (depthwise ? "hwc" : "ohwi"), wq);

    Value* xn = to_nhwc(anchor, x.q);
    Value* yn = nhwc_of_output(anchor);
    std::vector<Value*> ins{xn, wv};
    if (!bias.empty()) ins.push_back(constant_value(g_, n.name + "_bias", int32_constant(bias)));
    Node* q = insert(anchor, op, n.name, ins, {yn});
    const ops::Window2D window{strides, dil, *pads};
    const ops::QuantIO quant = quant_io(x, out, requant);
    if (depthwise) ops::set_attrs(*q, ops::QDepthwiseConv2D{window, cout / c, quant});
    else ops::set_attrs(*q, ops::QConv2D{window, group, quant});
    from_nhwc(anchor, yn);
    return true;
  }

  // ---- fully connected -------------------------------------------------------

  bool fully_connected(Node* n, std::string* why) {
    const bool gemm = n->op_type == "Gemm";
    if (gemm) {
      if (n->attr_int("transA", 0) != 0) return fail(why, "transA is set");
      if (n->attr_float("alpha", 1.0) != 1.0) return fail(why, "alpha is not 1");
      if (n->input(2) && n->attr_float("beta", 1.0) != 1.0) return fail(why, "beta is not 1");
    }
    auto x = dequantized(n->input(0), why);
    if (!x) return false;
    const bool trans_b = gemm && n->attr_int("transB", 0) != 0;
    if (n->input(1)->shape.size() != 2) return fail(why, "its weights are not a matrix");
    auto w = dequantized_weights(n->input(1), trans_b ? 0 : 1, why);
    if (!w) return false;
    auto out = quantized_output(n->outputs[0], why);
    if (!out) return false;
    const int64_t nout = w->q->shape()[trans_b ? 0 : 1];
    auto bias = accumulator_bias(gemm ? n->input(2) : nullptr, x->params.scale, *w, nout, why);
    if (!bias) return false;
    return emit_fc(*n, *x, *w, trans_b, *bias, *out, out->quantize, why);
  }

  bool qlinear_matmul(Node* n, std::string* why) {
    if (n->input(0)->dtype != DType::Int8 || n->outputs[0]->dtype != DType::Int8)
      return fail(why, "its tensors are not int8");
    std::string w_why;
    auto xp = per_tensor_params(n->input(1), n->input(2), &w_why);
    if (!xp) return fail(why, "input: " + w_why);
    auto yp = per_tensor_params(n->input(6), n->input(7), &w_why);
    if (!yp) return fail(why, "output: " + w_why);
    if (n->input(3)->shape.size() != 2) return fail(why, "its weights are not a matrix");
    auto w = constant_weights(n->input(3), n->input(4), n->input(5), 1, why);
    if (!w) return false;
    QuantOutput out;
    out.params = *yp;
    return emit_fc(*n, QuantTensor{n->input(0), *xp}, *w, false, {}, out, n, why);
  }

  // x [..., K] (a Reshape to [M, K] in front and back when it has another rank).
  bool emit_fc(const Node& n, const QuantTensor& x, const QuantWeights& w, bool trans_b,
               const std::vector<int32_t>& bias, const QuantOutput& out, Node* anchor, std::string* why) {
    const Shape& xs = x.q->shape;
    const Shape& ws = w.q->shape();
    const int64_t k = trans_b ? ws[1] : ws[0], nout = trans_b ? ws[0] : ws[1];
    if (xs.size() < 2 || xs.back() != k) return fail(why, "its input " + shape_str(xs) + " is not [..., " + std::to_string(k) + "]");
    if (!kernel("KilnQFullyConnected", why)) return false;
    const int64_t m = shape_elements(xs) / k;
    std::vector<double> requant;
    for (float s : w.scales) requant.push_back(double(x.params.scale) * double(s) / double(out.params.scale));
    Value* wv = constant_value(g_, n.name + "_w", trans_b ? w.q : w.q->transposed({1, 0}));
    Value* in = x.q;
    if (xs.size() != 2) {
      in = int8_value(x.q->name + "_2d", {m, k});
      insert(anchor, "Reshape", n.name + "_rows", {x.q, int64s(n.name + "_rows_shape", {m, k})}, {in});
    }
    std::vector<Value*> ins{in, wv};
    if (!bias.empty()) ins.push_back(constant_value(g_, n.name + "_bias", int32_constant(bias)));
    Value* y = xs.size() == 2 ? detach(anchor, 0) : int8_value(n.name + "_2d", {m, nout});
    Node* q = insert(anchor, "KilnQFullyConnected", n.name, ins, {y});
    ops::set_attrs(*q, ops::QFullyConnected{quant_io(x, out, requant)});
    if (xs.size() != 2) {
      Value* o = detach(anchor, 0);
      insert(anchor, "Reshape", n.name + "_unrows", {y, int64s(n.name + "_out_shape", o->shape)}, {o});
    }
    return true;
  }

  // ---- element-wise ----------------------------------------------------------

  bool binary(Node* n, std::string* why) {
    auto a = dequantized(n->input(0), why);
    if (!a) return false;
    auto b = dequantized(n->input(1), why);
    if (!b) return false;
    auto out = quantized_output(n->outputs[0], why);
    if (!out) return false;
    const std::string op = "KilnQ" + n->op_type;
    if (!kernel(op, why)) return false;
    Node* q = replace_group(out->quantize, op, n->name, {a->q, b->q});
    ops::QBinary attrs;
    attrs.a_scale = double(a->params.scale);
    attrs.a_zero_point = int64_t(a->params.zero_point);
    attrs.b_scale = double(b->params.scale);
    attrs.b_zero_point = int64_t(b->params.zero_point);
    attrs.y_scale = double(out->params.scale);
    attrs.y_zero_point = int64_t(out->params.zero_point);
    attrs.act_min = int64_t(out->act_min);
    attrs.act_max = int64_t(out->act_max);
    ops::set_attrs(*q, attrs);
    return true;
  }

  bool lookup(Node* n, std::string* why) {
    auto x = dequantized(n->input(0), why);
    if (!x) return false;
    auto f = unary_real_function(*n, why);
    if (!f) return false;
    auto out = quantized_output(n->outputs[0], why);
    if (!out) return false;
    if (!kernel("KilnQLookup", why)) return false;
    Value* table = lookup_table_value(n->name + "_table", *f, x->params, out->params, out->act_min, out->act_max);
    replace_group(out->quantize, "KilnQLookup", n->name, {x->q, table});
    return true;
  }

  // ---- pooling ---------------------------------------------------------------

  bool pool(Node* n, std::string* why) {
    const std::string& op = n->op_type;
    const bool global = op.rfind("Global", 0) == 0;
    const bool average = op.find("Average") != std::string::npos;
    if (n->input(0)->shape.size() != 4) return fail(why, "only 2-D pooling has an integer form");
    for (size_t i = 1; i < n->outputs.size(); ++i)
      if (!n->outputs[i]->users.empty() || n->outputs[i]->is_graph_output) return fail(why, "its indices are used");
    auto x = dequantized(n->input(0), why);
    if (!x) return false;
    auto out = quantized_output(n->outputs[0], why);
    if (!out) return false;
    const Shape& xs = x->q->shape;
    const Shape& ys = out->quantize->outputs[0]->shape;
    std::vector<int64_t> k{xs[2], xs[3]}, s{1, 1}, pads{0, 0, 0, 0};
    if (!global) {
      k = n->attr_ints("kernel_shape");
      s = n->attr_ints("strides", {1, 1});
      if (k.size() != 2 || s.size() != 2) return fail(why, "only 2-D pooling has an integer form");
      for (int64_t d : n->attr_ints("dilations", {1, 1}))
        if (d != 1) return fail(why, "dilated pooling has no integer form");
      auto p = spatial_pads(*n, {xs[2], xs[3]}, k, s, {1, 1}, why);
      if (!p) return false;
      pads = *p;
      if (average && n->attr_int("count_include_pad", 0) != 0 &&
          std::any_of(pads.begin(), pads.end(), [](int64_t v) { return v != 0; }))
        return fail(why, "count_include_pad counts the padding, the integer average does not");
    }
    if (window_out(xs[2], pads[0], pads[2], k[0], s[0], 1) != ys[2] ||
        window_out(xs[3], pads[1], pads[3], k[1], s[1], 1) != ys[3])
      return fail(why, "its output shape " + shape_str(ys) + " needs ceil_mode, which has no integer form");
    const std::string qop = average ? "KilnQAvgPool2D" : "KilnQMaxPool2D";
    if (!kernel(qop, why)) return false;
    const bool same = out->params == x->params;
    if (!same && !kernel("KilnQLookup", why)) return false;

    Node* anchor = out->quantize;
    Value* xn = to_nhwc(anchor, x->q);
    Value* yn = nhwc_of_output(anchor);
    Value* pooled = same ? yn : int8_value(n->name + "_pooled", yn->shape);
    Node* q = insert(anchor, qop, n->name, {xn}, {pooled});
    ops::set_attrs(*q, ops::QPool2D{k, s, pads, int64_t(same ? out->act_min : -128),
                                    int64_t(same ? out->act_max : 127)});
    if (!same) {
      // The pool keeps its input's quantization; a lookup requantizes (exact for
      // max, which commutes with a monotone map; an average rounds twice).
      Value* t = lookup_table_value(n->name + "_requant", [](float v) { return v; }, x->params, out->params,
                                    out->act_min, out->act_max);
      insert(anchor, "KilnQLookup", n->name + "_requant", {pooled, t}, {yn});
    }
    from_nhwc(anchor, yn);
    return true;
  }

  // ---- softmax, concat, pad --------------------------------------------------

  bool softmax(Node* n, std::string* why) {
    auto x = dequantized(n->input(0), why);
    if (!x) return false;
    const int64_t rank = int64_t(x->q->shape.size());
    int64_t axis = n->attr_int("axis", n->opset >= 13 ? -1 : 1);
    if (axis < 0) axis += rank;
    if (axis != rank - 1) return fail(why, "it is not over the last axis");
    auto out = quantized_output(n->outputs[0], why);
    if (!out) return false;
    if (out->params.scale != 1.f / 256.f || out->params.zero_point != -128)
      return fail(why, "its output is not quantized with scale 1/256 and zero point -128 (KilnQSoftmax's)");
    if (out->act_min != -128 || out->act_max != 127) return fail(why, "a clamp follows it");
    if (!kernel("KilnQSoftmax", why)) return false;
    Node* q = replace_group(out->quantize, "KilnQSoftmax", n->name, {x->q});
    ops::set_attrs(*q, ops::QSoftmax{1.0, double(x->params.scale)});
    return true;
  }

  bool concat(Node* n, std::string* why) {
    std::vector<QuantTensor> ins;
    for (Value* v : n->inputs) {
      auto t = dequantized(v, why);
      if (!t) return false;
      ins.push_back(*t);
    }
    auto out = quantized_output(n->outputs[0], why);
    if (!out) return false;
    if (out->act_min != -128 || out->act_max != 127) return fail(why, "a clamp follows it");
    std::vector<Value*> qs;
    for (const QuantTensor& t : ins) {
      if (t.params == out->params) {
        qs.push_back(t.q);
        continue;
      }
      // An input quantized differently is requantized to the output's first.
      if (!kernel("KilnQLookup", why)) return false;
      Value* table = lookup_table_value(n->name + "_requant", [](float v) { return v; }, t.params, out->params,
                                        -128, 127);
      Value* r = int8_value(t.q->name + "_requant", t.q->shape);
      insert(out->quantize, "KilnQLookup", n->name + "_requant", {t.q, table}, {r});
      qs.push_back(r);
    }
    Node* q = replace_group(out->quantize, "Concat", n->name, qs);
    q->attrs = n->attrs;
    q->opset = n->opset;
    return true;
  }

  bool pad(Node* n, std::string* why) {
    if (n->attr_string("mode", "constant") != "constant") return fail(why, "only constant padding has an integer form");
    auto x = dequantized(n->input(0), why);
    if (!x) return false;
    auto out = quantized_output(n->outputs[0], why);
    if (!out) return false;
    if (out->params != x->params || out->act_min != -128 || out->act_max != 127)
      return fail(why, "its output is quantized differently from its input");
    Node* q = nullptr;
    if (n->opset < 11) {
      if (n->attr_float("value", 0.0) != 0.0) return fail(why, "it pads with a value other than 0");
      q = replace_group(out->quantize, "Pad", n->name, {x->q});
      q->attrs = n->attrs;
      q->attrs["value"] = double(x->params.zero_point);
    } else {
      const Value* cv = n->input(2);
      if (cv && !(cv->is_constant() && cv->constant->num_elements() == 1 && cv->constant->as_double(0) == 0.0))
        return fail(why, "it pads with a value other than 0");
      std::vector<Value*> ins{x->q, n->input(1), int8_scalar(n->name + "_zero_point", x->params.zero_point)};
      if (n->input(3)) ins.push_back(n->input(3));
      q = replace_group(out->quantize, "Pad", n->name, ins);
      q->attrs = n->attrs;
    }
    q->opset = n->opset;
    return true;
  }

  // ---- report ----------------------------------------------------------------

  void report(QdqReport& rep) {
    for (const auto& up : g_.nodes) {
      const Node* n = up.get();
      if (n->op_type.rfind("KilnQ", 0) == 0) {
        rep.integer_ops[n->op_type]++;
        continue;
      }
      if (!is_default_domain(n)) continue;
      if (n->op_type == "QuantizeLinear") {
        rep.boundary_quantize++;
        continue;
      }
      if (n->op_type == "DequantizeLinear") {
        rep.boundary_dequantize++;
        continue;
      }
      if (n->op_type == "Transpose") rep.transposes++;
      if (n->op_type == "QLinearConv" || n->op_type == "QLinearMatMul" || n->op_type == "ConvInteger" ||
          n->op_type == "MatMulInteger") {
        auto it = reasons_.find(n);
        rep.float_ops.push_back({n->describe(), it != reasons_.end() ? it->second
                                                                      : "no integer form of " + n->op_type +
                                                                            " (its result is int32, not requantized)"});
        continue;
      }
      bool touches = false;
      for (const Value* v : n->inputs) touches |= v && is_op(v->producer, "DequantizeLinear");
      for (const Value* v : n->outputs)
        for (const Node* u : v->users) touches |= is_op(u, "QuantizeLinear");
      if (!touches || is_data_movement(n)) continue;
      // A Relu / Clip after a float op belongs to that op's group: the op says why.
      if ((is_op(n, "Relu") || is_op(n, "Clip")) && !is_op(n->input(0)->producer, "DequantizeLinear")) continue;
      auto it = reasons_.find(n);
      rep.float_ops.push_back({n->describe(), it != reasons_.end() ? it->second : "no integer form of " + n->op_type});
    }
  }
};

}  // namespace

QdqReport rewrite_quantized_graph(Graph& g, const QdqOptions& options) { return Rewriter(g, options).run(); }

nlohmann::json qdq_report_to_json(const QdqReport& r) {
  nlohmann::json j;
  j["quantized_model"] = r.quantized_model;
  j["integer_ops"] = r.integer_ops;
  nlohmann::json f = nlohmann::json::array();
  for (const auto& op : r.float_ops) f.push_back({{"node", op.node}, {"reason", op.reason}});
  j["float_ops"] = f;
  j["quantize_linear_left"] = r.boundary_quantize;
  j["dequantize_linear_left"] = r.boundary_dequantize;
  j["transposes"] = r.transposes;
  if (r.absorbed_transposes > 0) j["nchw_inputs_read"] = r.absorbed_transposes;
  return j;
}

std::string qdq_report_summary(const QdqReport& r) {
  if (!r.quantized_model) return "";
  std::ostringstream o;
  int total = 0;
  for (const auto& [_, c] : r.integer_ops) total += c;
  o << "quantized model: " << total << " integer ops";
  if (!r.integer_ops.empty()) {
    o << " (";
    bool first = true;
    for (const auto& [op, c] : r.integer_ops) o << (first ? "" : ", ") << op << " x" << c, first = false;
    o << ")";
  }
  o << ", " << r.float_ops.size() << " stayed float, " << r.boundary_quantize << " QuantizeLinear / "
    << r.boundary_dequantize << " DequantizeLinear left, " << r.transposes << " Transpose";
  if (r.absorbed_transposes > 0) o << " (" << r.absorbed_transposes << " conv input read in NCHW)";
  o << "\n";
  for (const auto& f : r.float_ops) o << "  stayed float: " << f.node << ": " << f.reason << "\n";
  return o.str();
}

}  // namespace kiln::quant
