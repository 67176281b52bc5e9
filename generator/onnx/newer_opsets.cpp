#include "onnx/newer_opsets.h"

#include <onnx/onnx_pb.h>

#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "onnx/node_conversion.h"
#include "onnx/tensor_proto.h"
#include "util/checked_math.h"
#include "util/error.h"
#include "util/quoted.h"

namespace kiln {

namespace {

using onnx::AttributeProto;
using onnx::GraphProto;
using onnx::NodeProto;


// ---- names -----------------------------------------------------------------

void collect_names(const GraphProto& g, std::set<std::string>* names) {
  for (const auto& v : g.input()) names->insert(v.name());
  for (const auto& v : g.output()) names->insert(v.name());
  for (const auto& t : g.initializer()) names->insert(t.name());
  for (const auto& n : g.node()) {
    names->insert(n.name());
    for (const auto& o : n.output()) names->insert(o);
    for (const auto& i : n.input()) names->insert(i);
    for (const auto& a : n.attribute()) {
      if (a.has_g()) collect_names(a.g(), names);
      for (const auto& sg : a.graphs()) collect_names(sg, names);
    }
  }
}

// Fresh value and node names that collide with nothing in the model.
class NameSource {
 public:
  explicit NameSource(std::set<std::string> used) : used_(std::move(used)) {}
  std::string fresh(const std::string& hint) {
    for (;;) {
      std::string n = hint + "__kiln" + std::to_string(counter_++);
      if (used_.insert(n).second) return n;
    }
  }

 private:
  std::set<std::string> used_;
  uint64_t counter_ = 0;
};

// ---- attributes ------------------------------------------------------------

const AttributeProto* find_attr(const NodeProto& n, const std::string& name) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

void erase_attr(NodeProto& n, const std::string& name) {
  auto* attrs = n.mutable_attribute();
  for (int i = 0; i < attrs->size(); ++i)
    if (attrs->Get(i).name() == name) {
      attrs->DeleteSubrange(i, 1);
      return;
    }
}

AttributeProto* set_attr(NodeProto& n, const std::string& name, AttributeProto::AttributeType type) {
  erase_attr(n, name);
  AttributeProto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(type);
  return a;
}
void set_int(NodeProto& n, const std::string& k, int64_t v) { set_attr(n, k, AttributeProto::INT)->set_i(v); }
void set_float(NodeProto& n, const std::string& k, float v) { set_attr(n, k, AttributeProto::FLOAT)->set_f(v); }
void set_string(NodeProto& n, const std::string& k, const std::string& v) {
  set_attr(n, k, AttributeProto::STRING)->set_s(v);
}
void set_ints(NodeProto& n, const std::string& k, const std::vector<int64_t>& v) {
  auto* a = set_attr(n, k, AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}

int64_t attr_int(const NodeProto& n, const std::string& k, int64_t dflt) {
  const AttributeProto* a = find_attr(n, k);
  return a && a->type() == AttributeProto::INT ? a->i() : dflt;
}
std::string attr_string(const NodeProto& n, const std::string& k, const std::string& dflt) {
  const AttributeProto* a = find_attr(n, k);
  return a && a->type() == AttributeProto::STRING ? a->s() : dflt;
}

bool has_input(const NodeProto& n, int i) { return i < n.input_size() && !n.input(i).empty(); }

void drop_inputs_from(NodeProto& n, int first) {
  while (n.input_size() > first) n.mutable_input()->RemoveLast();
  while (n.input_size() > 0 && n.input(n.input_size() - 1).empty()) n.mutable_input()->RemoveLast();
}

// ---- constants in scope ----------------------------------------------------

// Initializers and Constant nodes visible at a point of a graph, the enclosing
// graphs' included.
struct Scope {
  const Scope* parent = nullptr;
  std::map<std::string, const onnx::TensorProto*> tensors;
  std::map<std::string, std::vector<int64_t>> ints;  // Constant(value_int / value_ints)
};

// ---- the rewrite -------------------------------------------------------------

const std::set<std::string> kReduceWithAxesInput = {"ReduceL1",        "ReduceL2",  "ReduceLogSum",
                                                    "ReduceLogSumExp", "ReduceMax", "ReduceMean",
                                                    "ReduceMin",       "ReduceProd", "ReduceSumSquare"};

// Operators added at opsets 18..21 without an opset-17 expression here.
const std::set<std::string> kUnsupportedNewOps = {
    "Col2Im",       "CenterCropPad", "BitwiseAnd",    "BitwiseOr",   "BitwiseXor",    "BitwiseNot",
    "DeformConv",   "AffineGrid",    "ImageDecoder",  "RegexFullMatch", "StringConcat", "StringSplit",
    "OptionalGetElement", "OptionalHasElement"};

// The inputs and outputs the rewrites below read by position (opset 18..21 forms).
// Node validation runs after this pass, on the opset-17 forms, so a rewrite checks
// what it indexes first (found by `make fuzz`: a Gelu with no output was a
// protobuf CHECK abort).
struct Arity {
  int inputs;   // leading inputs that must be present (named)
  int outputs;  // leading outputs that must be present
};
const std::map<std::string, Arity> kRewriteArity = {
    {"ReduceL1", {1, 1}},  {"ReduceL2", {1, 1}},   {"ReduceLogSum", {1, 1}}, {"ReduceLogSumExp", {1, 1}},
    {"ReduceMax", {1, 1}}, {"ReduceMean", {1, 1}}, {"ReduceMin", {1, 1}},    {"ReduceProd", {1, 1}},
    {"ReduceSumSquare", {1, 1}}, {"Split", {1, 1}}, {"Pad", {2, 1}},         {"Resize", {1, 1}},
    {"DFT", {1, 1}},       {"Mish", {1, 1}},       {"Gelu", {1, 1}},         {"GroupNormalization", {3, 1}},
    {"QuantizeLinear", {2, 1}}, {"DequantizeLinear", {2, 1}}};

class Lowering {
 public:
  Lowering(int64_t opset, std::filesystem::path base_dir, NameSource* names)
      : opset_(opset), base_dir_(std::move(base_dir)), names_(*names) {}

  void graph(GraphProto& g, const Scope* parent) {
    Scope scope;
    scope.parent = parent;
    for (const auto& t : g.initializer()) scope.tensors[t.name()] = &t;
    std::vector<NodeProto> nodes(g.node().begin(), g.node().end());
    std::vector<NodeProto> out;
    out.reserve(nodes.size());
    out_ = &out;
    for (auto& n : nodes) {
      for (auto& a : *n.mutable_attribute()) {
        if (a.has_g()) graph_nested(*a.mutable_g(), &scope);
        for (auto& sg : *a.mutable_graphs()) graph_nested(sg, &scope);
      }
      out_ = &out;
      node(n, scope);
    }
    g.clear_node();
    for (auto& n : out) *g.add_node() = std::move(n);
  }

 private:
  void graph_nested(GraphProto& g, const Scope* parent) {
    std::vector<NodeProto>* saved = out_;
    graph(g, parent);
    out_ = saved;
  }

  // The int64 values of constant `name` (an initializer or a Constant node of this
  // graph or an enclosing one), or nullopt when it is computed.
  std::optional<std::vector<int64_t>> const_ints(const Scope& s, const std::string& name, const std::string& who) {
    for (const Scope* p = &s; p; p = p->parent) {
      if (auto it = p->ints.find(name); it != p->ints.end()) return it->second;
      if (auto it = p->tensors.find(name); it != p->tensors.end()) {
        ConstantPtr c = constant_from_tensor_proto(*it->second, base_dir_, who + " input " + in_quotes(name));
        if (c->dtype() != DType::Int64 && c->dtype() != DType::Int32)
          throw CompileError(who + ": input " + in_quotes(name) + " must be int64");
        std::vector<int64_t> v;
        for (int64_t i = 0; i < c->num_elements(); ++i) v.push_back(c->as_int64(i));
        return v;
      }
    }
    return std::nullopt;
  }

  void record_constant(const NodeProto& n, Scope& s) {
    if (n.op_type() != "Constant" || n.output_size() != 1 || n.attribute_size() != 1) return;
    const auto& a = n.attribute(0);
    if (a.name() == "value" && a.has_t()) s.tensors[n.output(0)] = &a.t();
    else if (a.name() == "value_int") s.ints[n.output(0)] = {a.i()};
    else if (a.name() == "value_ints") s.ints[n.output(0)] = {a.ints().begin(), a.ints().end()};
  }

  // -- node builders: append to the current graph, return the output name --

  NodeProto& emit(const std::string& op, const std::vector<std::string>& ins, const std::vector<std::string>& outs,
                  const std::string& hint) {
    out_->emplace_back();
    NodeProto& n = out_->back();
    n.set_op_type(op);
    n.set_name(names_.fresh(hint + "." + op));
    for (const auto& i : ins) n.add_input(i);
    for (const auto& o : outs) n.add_output(o);
    return n;
  }
  std::string op1(const std::string& op, const std::vector<std::string>& ins, const std::string& hint) {
    const std::string o = names_.fresh(hint);
    emit(op, ins, {o}, hint);
    return o;
  }
  std::string const_i64(const std::vector<int64_t>& v, bool scalar, const std::string& hint) {
    const std::string o = names_.fresh(hint);
    NodeProto& n = emit("Constant", {}, {o}, hint);
    auto* a = set_attr(n, "value", AttributeProto::TENSOR);
    auto* t = a->mutable_t();
    t->set_data_type(onnx::TensorProto::INT64);
    if (!scalar) t->add_dims(int64_t(v.size()));
    for (int64_t x : v) t->add_int64_data(x);
    return o;
  }
  std::string const_f32(const std::vector<float>& v, bool scalar, const std::string& hint) {
    const std::string o = names_.fresh(hint);
    NodeProto& n = emit("Constant", {}, {o}, hint);
    auto* t = set_attr(n, "value", AttributeProto::TENSOR)->mutable_t();
    t->set_data_type(onnx::TensorProto::FLOAT);
    if (!scalar) t->add_dims(int64_t(v.size()));
    for (float x : v) t->add_float_data(x);
    return o;
  }
  // A float constant in the element type of `like` (CastLike; folded once that type is known).
  std::string const_like(float v, const std::string& like, const std::string& hint) {
    return op1("CastLike", {const_f32({v}, true, hint), like}, hint);
  }
  // The rank of `x` as a 1-D tensor of one element.
  std::string rank_of(const std::string& x, const std::string& hint) {
    return op1("Shape", {op1("Shape", {x}, hint)}, hint);
  }
  // `axes` (1-D, maybe negative) made non-negative for rank `r` ([1]).
  std::string normalized_axes(const std::string& axes, const std::string& r, const std::string& hint) {
    return op1("Mod", {op1("Add", {axes, r}, hint), r}, hint);
  }
  // A copy of `base` (1-D) with base[axes[i]] = values[i].
  std::string scatter_1d(const std::string& base, const std::string& axes, const std::string& values,
                         const std::string& hint) {
    NodeProto& n = emit("ScatterElements", {base, axes, values}, {names_.fresh(hint)}, hint);
    set_int(n, "axis", 0);
    return n.output(0);
  }

  void require_default_int(const NodeProto& n, const std::string& k, int64_t dflt, const std::string& who) {
    if (attr_int(n, k, dflt) != dflt)
      throw CompileError(who + ": attribute " + k + "=" + std::to_string(attr_int(n, k, dflt)) +
                         " (opset " + std::to_string(opset_) + ") is not supported");
    erase_attr(n_mut_, k);
  }
  void require_unit_ints(const NodeProto& n, const std::string& k, const std::string& who) {
    if (const AttributeProto* a = find_attr(n, k))
      for (int64_t v : a->ints())
        if (v != 1)
          throw CompileError(who + ": attribute " + k + " other than 1 (opset " + std::to_string(opset_) +
                             ") is not supported");
    erase_attr(n_mut_, k);
  }

  // -- one node --

  void node(NodeProto& n, Scope& scope) {
    n_mut_ = NodeProto();
    if (!is_default_domain(n.domain())) {
      out_->push_back(n);
      return;
    }
    const std::string& op = n.op_type();
    const std::string who = op + " " + in_quotes(n.name());
    const std::string hint = n.name().empty() ? op : n.name();
    if (kUnsupportedNewOps.count(op))
      throw CompileError(who + ": operator " + op + " (opset " + std::to_string(opset_) + ") is not supported");
    if (auto a = kRewriteArity.find(op); a != kRewriteArity.end()) {
      const auto require = [&](const auto& names, int count, const char* what) {
        for (int i = 0; i < count; ++i)
          if (i >= names.size() || names.Get(i).empty())
            throw CompileError(who + ": " + what + " " + std::to_string(i) + " is missing (" + op + " needs " +
                               std::to_string(count) + ", the node names " + std::to_string(names.size()) + ")");
      };
      require(n.input(), a->second.inputs, "input");
      require(n.output(), a->second.outputs, "output");
    }
    n_mut_ = n;
    if (rewrite(n, scope, who, hint)) return;
    record_constant(n, scope);  // `n` lives in graph()'s copy of the nodes until the graph is done
    out_->push_back(n_mut_);
  }

  // Brings n_mut_, a copy of `n`, to its opset-17 form in place (attributes and
  // inputs), emitting the nodes it needs. Returns true when `n` was replaced by
  // other nodes entirely (then n_mut_ is not kept).
  bool rewrite(const NodeProto& n, Scope& scope, const std::string& who, const std::string& hint) {
    const std::string& op = n.op_type();
    NodeProto& m = n_mut_;
    if (kReduceWithAxesInput.count(op)) return rewrite_reduce(n, scope, who);
    if (op == "Split") {
      rewrite_split(n, who, hint);
    } else if (op == "Pad") {
      rewrite_pad(n, hint);
    } else if (op == "Resize") {
      rewrite_resize(n, who, hint);
    } else if (op == "LpPool") {
      require_default_int(n, "ceil_mode", 0, who);
      require_unit_ints(n, "dilations", who);
    } else if (op == "AveragePool" && opset_ >= 19) {
      require_unit_ints(n, "dilations", who);
    } else if (op == "Cast" || op == "CastLike") {
      erase_attr(m, "saturate");  // float8 only
    } else if (op == "QuantizeLinear" || op == "DequantizeLinear") {
      rewrite_quantize_linear(n, who, hint);
    } else if (op == "GridSample") {
      const std::string mode = attr_string(n, "mode", "linear");
      set_string(m, "mode", mode == "linear" ? "bilinear" : mode == "cubic" ? "bicubic" : mode);
    } else if (op == "DFT" && opset_ >= 20) {
      rewrite_dft(n, scope, who);
    } else if (op == "Mish") {
      // x * tanh(softplus(x))
      emit("Mul", {n.input(0), op1("Tanh", {op1("Softplus", {n.input(0)}, hint)}, hint)}, {n.output(0)}, hint);
      return true;
    } else if (op == "Gelu") {
      lower_gelu(n, who, hint);
      return true;
    } else if (op == "GroupNormalization") {
      lower_group_normalization(n, who, hint);
      return true;
    }
    return false;
  }

  // Reduce* (opset 18): axes as input 1 -> the attribute; an empty reduction with
  // noop_with_empty_axes -> Identity (returns true then).
  bool rewrite_reduce(const NodeProto& n, Scope& scope, const std::string& who) {
    NodeProto& m = n_mut_;
    const bool noop = attr_int(n, "noop_with_empty_axes", 0) != 0;
    erase_attr(m, "noop_with_empty_axes");
    std::optional<std::vector<int64_t>> axes;
    if (has_input(n, 1)) {
      axes = const_ints(scope, n.input(1), who);
      if (!axes) throw CompileError(who + ": axes must be a compile-time constant (an initializer or a Constant)");
    }
    drop_inputs_from(m, 1);
    if ((!axes || axes->empty()) && noop) {
      // Nothing to reduce: the input unchanged.
      NodeProto id;
      id.set_op_type("Identity");
      id.set_name(n.name());
      id.add_input(n.input(0));
      id.add_output(n.output(0));
      out_->push_back(id);
      return true;
    }
    if (axes && !axes->empty()) set_ints(m, "axes", *axes);
    return false;
  }

  // Split (opset 18): num_outputs -> the split sizes as input 1.
  void rewrite_split(const NodeProto& n, const std::string& who, const std::string& hint) {
    NodeProto& m = n_mut_;
    const AttributeProto* num = find_attr(n, "num_outputs");
    erase_attr(m, "num_outputs");
    if (num && !has_input(n, 1)) {
      if (num->i() != n.output_size() || num->i() < 1)
        throw CompileError(who + ": num_outputs is " + std::to_string(num->i()) + " but the node has " +
                           std::to_string(n.output_size()) + " outputs");
      // ceil(d / n) per output, the rest in the last one (opset 18 semantics).
      const int64_t k = num->i();
      const std::string d =
          op1("Gather", {op1("Shape", {n.input(0)}, hint), const_i64({attr_int(n, "axis", 0)}, false, hint)}, hint);
      std::string sizes = d;
      if (k > 1) {
        const std::string chunk =
            op1("Div", {op1("Add", {d, const_i64({k - 1}, false, hint)}, hint), const_i64({k}, false, hint)}, hint);
        const std::string first = op1("Expand", {chunk, const_i64({k - 1}, false, hint)}, hint);
        const std::string last = op1("Sub", {d, op1("Mul", {chunk, const_i64({k - 1}, false, hint)}, hint)}, hint);
        NodeProto& c = emit("Concat", {first, last}, {names_.fresh(hint)}, hint);
        set_int(c, "axis", 0);
        sizes = c.output(0);
      }
      while (m.input_size() < 2) m.add_input("");
      m.set_input(1, sizes);
    }
  }

  // Pad (opset 18): pads for the listed axes only -> pads for every axis.
  void rewrite_pad(const NodeProto& n, const std::string& hint) {
    NodeProto& m = n_mut_;
    if (has_input(n, 3)) {
      // pads for the listed axes only -> pads for every axis.
      const std::string r = rank_of(n.input(0), hint);
      const std::string ax = normalized_axes(n.input(3), r, hint);
      NodeProto& idx = emit("Concat", {ax, op1("Add", {ax, r}, hint)}, {names_.fresh(hint)}, hint);
      set_int(idx, "axis", 0);
      const std::string idx_name = idx.output(0);
      NodeProto& zeros = emit("ConstantOfShape", {op1("Mul", {r, const_i64({2}, false, hint)}, hint)},
                              {names_.fresh(hint)}, hint);
      auto* t = set_attr(zeros, "value", AttributeProto::TENSOR)->mutable_t();
      t->set_data_type(onnx::TensorProto::INT64);
      t->add_dims(1);
      t->add_int64_data(0);
      const std::string full = scatter_1d(zeros.output(0), idx_name, n.input(1), hint);
      m.set_input(1, full);
      drop_inputs_from(m, 3);
    }
  }

  // Resize (opset 18/19): antialias, keep_aspect_ratio_policy and axes.
  void rewrite_resize(const NodeProto& n, const std::string& who, const std::string& hint) {
    NodeProto& m = n_mut_;
    require_default_int(n, "antialias", 0, who);
    const std::string policy = attr_string(n, "keep_aspect_ratio_policy", "stretch");
    if (policy != "stretch" && has_input(n, 3))
      throw CompileError(who + ": keep_aspect_ratio_policy " + in_quotes(policy) + " is not supported");
    erase_attr(m, "keep_aspect_ratio_policy");
    if (const AttributeProto* axes = find_attr(n, "axes")) {
      if (attr_string(n, "coordinate_transformation_mode", "half_pixel") == "tf_crop_and_resize")
        throw CompileError(who + ": the axes attribute with tf_crop_and_resize is not supported");
      if (axes->type() != AttributeProto::INTS || axes->ints_size() == 0)
        throw CompileError(who + ": attribute axes must be a non-empty list of ints");
      const std::string ax_const = const_i64({axes->ints().begin(), axes->ints().end()}, false, hint);
      erase_attr(m, "axes");
      const std::string r = rank_of(n.input(0), hint);
      const std::string ax = normalized_axes(ax_const, r, hint);
      if (n.input_size() > 1) m.set_input(1, "");  // roi only matters for tf_crop_and_resize
      if (has_input(n, 2)) {
        NodeProto& ones = emit("ConstantOfShape", {r}, {names_.fresh(hint)}, hint);
        auto* t = set_attr(ones, "value", AttributeProto::TENSOR)->mutable_t();
        t->set_data_type(onnx::TensorProto::FLOAT);
        t->add_dims(1);
        t->add_float_data(1.0f);
        m.set_input(2, scatter_1d(ones.output(0), ax, n.input(2), hint));
      }
      if (has_input(n, 3)) m.set_input(3, scatter_1d(op1("Shape", {n.input(0)}, hint), ax, n.input(3), hint));
    }
    const std::string coord = attr_string(n, "coordinate_transformation_mode", "half_pixel");
    if (coord == "half_pixel_symmetric")
      throw CompileError(who + ": coordinate_transformation_mode 'half_pixel_symmetric' is not supported");
  }

  // QuantizeLinear / DequantizeLinear (opset 19..21): saturate, block_size, output_dtype.
  void rewrite_quantize_linear(const NodeProto& n, const std::string& who, const std::string& hint) {
    NodeProto& m = n_mut_;
    const std::string& op = n.op_type();
    erase_attr(m, "saturate");  // float8 only
    require_default_int(n, "block_size", 0, who);
    const int64_t out_dtype = attr_int(n, "output_dtype", 0);
    erase_attr(m, "output_dtype");
    if (op == "QuantizeLinear" && out_dtype != 0 && !has_input(n, 2)) {
      // The output type named by attribute -> a zero point of that type.
      if (out_dtype != onnx::TensorProto::UINT8 && out_dtype != onnx::TensorProto::INT8)
        throw CompileError(who + ": output_dtype " + std::to_string(out_dtype) + " is not supported");
      const std::string zp = names_.fresh(hint + ".zero_point");
      NodeProto& c = emit("Constant", {}, {zp}, hint);
      auto* t = set_attr(c, "value", AttributeProto::TENSOR)->mutable_t();
      t->set_data_type(int32_t(out_dtype));
      t->add_int32_data(0);
      while (m.input_size() < 3) m.add_input("");
      m.set_input(2, zp);
    }
  }

  // DFT (opset 20): the axis as input 2 -> the attribute.
  void rewrite_dft(const NodeProto& n, Scope& scope, const std::string& who) {
    NodeProto& m = n_mut_;
    // Opset 20 takes the axis as input 2 (default -2, counted with the complex axis).
    std::optional<std::vector<int64_t>> axis;
    if (has_input(n, 2)) axis = const_ints(scope, n.input(2), who);
    if (!axis || axis->size() != 1 || (*axis)[0] < 0)
      throw CompileError(who + ": DFT (opset " + std::to_string(opset_) +
                         ") needs its axis input as a non-negative constant");
    set_int(m, "axis", (*axis)[0]);
    drop_inputs_from(m, 2);
  }

  void lower_gelu(const NodeProto& n, const std::string& who, const std::string& hint) {
    const std::string x = n.input(0);
    const std::string approx = attr_string(n, "approximate", "none");
    std::string inner;
    if (approx == "none") {
      // 0.5 x (1 + erf(x / sqrt(2)))
      inner = op1("Erf", {op1("Mul", {x, const_like(float(1.0 / std::sqrt(2.0)), x, hint)}, hint)}, hint);
    } else if (approx == "tanh") {
      // 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))
      const std::string x3 = op1("Mul", {op1("Mul", {x, x}, hint), x}, hint);
      const std::string poly = op1("Add", {x, op1("Mul", {x3, const_like(0.044715f, x, hint)}, hint)}, hint);
      inner = op1("Tanh", {op1("Mul", {poly, const_like(float(std::sqrt(2.0 / M_PI)), x, hint)}, hint)}, hint);
    } else {
      throw CompileError(who + ": approximate " + in_quotes(approx) + " is not supported");
    }
    const std::string one_plus = op1("Add", {inner, const_like(1.0f, x, hint)}, hint);
    emit("Mul", {op1("Mul", {x, one_plus}, hint), const_like(0.5f, x, hint)}, {n.output(0)}, hint);
  }

  // Normalization over groups of channels = InstanceNormalization of x seen as
  // [N, G, C/G * spatial], then the affine per group (opset 18) or per channel (21).
  void lower_group_normalization(const NodeProto& n, const std::string& who, const std::string& hint) {
    if (n.input_size() != 3 || !has_input(n, 1) || !has_input(n, 2))
      throw CompileError(who + ": GroupNormalization needs X, scale and bias");
    const int64_t groups = attr_int(n, "num_groups", 0);
    if (groups < 1) throw CompileError(who + ": num_groups must be at least 1");
    const float eps = find_attr(n, "epsilon") ? find_attr(n, "epsilon")->f() : 1e-5f;
    const std::string x = n.input(0);
    const std::string shape = op1("Shape", {x}, hint);
    const std::string grouped = op1("Reshape", {x, const_i64({0, groups, -1}, false, hint)}, hint);
    const std::string ones =
        op1("CastLike", {const_f32(std::vector<float>(size_t(groups), 1.0f), false, hint), x}, hint);
    const std::string zeros =
        op1("CastLike", {const_f32(std::vector<float>(size_t(groups), 0.0f), false, hint), x}, hint);
    NodeProto& in = emit("InstanceNormalization", {grouped, ones, zeros}, {names_.fresh(hint)}, hint);
    set_float(in, "epsilon", eps);
    std::string normalized = in.output(0);
    if (opset_ >= 21) {
      // scale / bias per channel: view as [N, C, rest].
      NodeProto& nc = emit("Slice", {shape, const_i64({0}, false, hint), const_i64({2}, false, hint)},
                           {names_.fresh(hint)}, hint);
      NodeProto& target = emit("Concat", {nc.output(0), const_i64({-1}, false, hint)}, {names_.fresh(hint)}, hint);
      set_int(target, "axis", 0);
      normalized = op1("Reshape", {normalized, target.output(0)}, hint);
    }
    const std::string axis1 = const_i64({1}, false, hint);
    const std::string scaled = op1("Mul", {normalized, op1("Unsqueeze", {n.input(1), axis1}, hint)}, hint);
    const std::string shifted = op1("Add", {scaled, op1("Unsqueeze", {n.input(2), axis1}, hint)}, hint);
    emit("Reshape", {shifted, shape}, {n.output(0)}, hint);
  }

  int64_t opset_;
  std::filesystem::path base_dir_;
  NameSource& names_;
  std::vector<NodeProto>* out_ = nullptr;
  NodeProto n_mut_;
};

// ---- functions -----------------------------------------------------------------

using FunctionKey = std::pair<std::string, std::string>;  // domain, name

class Inliner {
 public:
  Inliner(const onnx::ModelProto& model, NameSource* names) : names_(*names) {
    for (const auto& f : model.functions()) functions_[{f.domain(), f.name()}] = &f;
  }

  void graph(GraphProto& g, int depth) {
    std::vector<NodeProto> out;
    for (const auto& n : g.node()) expand(n, depth, &out);
    g.clear_node();
    for (auto& n : out) {
      for (auto& a : *n.mutable_attribute()) {
        if (a.has_g()) graph(*a.mutable_g(), depth);
        for (auto& sg : *a.mutable_graphs()) graph(sg, depth);
      }
      *g.add_node() = std::move(n);
    }
  }

 private:
  void expand(const NodeProto& call, int depth, std::vector<NodeProto>* out) {
    auto it = functions_.find({call.domain(), call.op_type()});
    if (it == functions_.end()) {
      // Calls may fan out at every level (32 levels of two calls each would be 2^32
      // nodes): the inlined graph is held to the node limit as it grows.
      if (++inlined_nodes_ > kMaxGraphNodes)
        throw CompileError("node " + in_quotes(call.name()) + " (" + call.op_type() + "): inlining the model's functions gives more than " +
                           std::to_string(kMaxGraphNodes) + " nodes, Kiln's limit");
      out->push_back(call);
      return;
    }
    const onnx::FunctionProto& f = *it->second;
    const std::string who = "function call " + call.op_type() + " " + in_quotes(call.name());
    if (depth > 32) throw CompileError(who + ": functions nested more than 32 deep (recursive?)");
    // Formal parameter -> actual value name; body-internal values get fresh names.
    std::map<std::string, std::string> rename;
    for (int i = 0; i < f.input_size(); ++i) rename[f.input(i)] = i < call.input_size() ? call.input(i) : "";
    for (int i = 0; i < f.output_size(); ++i)
      rename[f.output(i)] = i < call.output_size() ? call.output(i) : names_.fresh(f.output(i));
    std::map<std::string, const AttributeProto*> actual;
    for (const auto& a : call.attribute()) actual[a.name()] = &a;
    // Attribute defaults (FunctionProto.attribute_proto, IR 9) are not in the
    // protobuf schema this build reads: a reference the call does not set is absent.
    auto name_of = [&](const std::string& v) -> std::string {
      if (v.empty()) return v;
      auto r = rename.find(v);
      if (r != rename.end()) return r->second;
      return rename[v] = names_.fresh(call.name() + "." + v);
    };
    std::vector<NodeProto> body;
    for (const auto& fn : f.node()) {
      NodeProto n = fn;
      n.set_name(names_.fresh(call.name() + "." + (fn.name().empty() ? fn.op_type() : fn.name())));
      for (auto& i : *n.mutable_input()) i = name_of(i);
      for (auto& o : *n.mutable_output()) o = name_of(o);
      auto* attrs = n.mutable_attribute();
      for (int k = 0; k < attrs->size();) {
        AttributeProto& a = *attrs->Mutable(k);
        if (a.ref_attr_name().empty()) {
          if (a.has_g() || a.graphs_size() > 0)
            throw CompileError(who + ": a function body node with a subgraph is not supported");
          ++k;
          continue;
        }
        const AttributeProto* src = nullptr;
        if (auto ai = actual.find(a.ref_attr_name()); ai != actual.end()) src = ai->second;
        if (!src) {  // not given: the attribute is absent
          attrs->DeleteSubrange(k, 1);
          continue;
        }
        const std::string nm = a.name();
        a = *src;
        a.set_name(nm);
        ++k;
      }
      expand(n, depth + 1, &body);
    }
    for (auto& n : body) out->push_back(std::move(n));
  }

  NameSource& names_;
  std::map<FunctionKey, const onnx::FunctionProto*> functions_;
  int64_t inlined_nodes_ = 0;
};

}  // namespace

void inline_model_functions(onnx::ModelProto& model) {
  if (model.functions_size() == 0) return;
  std::set<std::string> used;
  collect_names(model.graph(), &used);
  for (const auto& f : model.functions())
    for (const auto& n : f.node())
      for (const auto& o : n.output()) used.insert(o);
  NameSource names(std::move(used));
  Inliner(model, &names).graph(*model.mutable_graph(), 0);
  model.clear_functions();
}

void lower_newer_opset(onnx::ModelProto& model, int64_t opset, int64_t target, const std::filesystem::path& base_dir) {
  std::set<std::string> used;
  collect_names(model.graph(), &used);
  NameSource names(std::move(used));
  Lowering(opset, base_dir, &names).graph(*model.mutable_graph(), nullptr);
  for (auto& imp : *model.mutable_opset_import())
    if (is_default_domain(imp.domain())) imp.set_version(target);
  // IR 9 and 10 add float8 / int4 types and function overloads, which Kiln refuses
  // where they occur; the rest of the format is IR 8's.
  if (model.ir_version() > 8) model.set_ir_version(8);
}

}  // namespace kiln
