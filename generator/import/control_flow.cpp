#include "import/control_flow.h"

#include <algorithm>
#include <deque>
#include <map>
#include <optional>
#include <set>

#include "fold/evaluate.h"
#include "import/node_shape_inference.h"
#include "import/tensor_proto.h"
#include "util/checked_math.h"
#include "util/error.h"

namespace kiln {

namespace {

AttrValue convert_plain_attribute(const onnx::AttributeProto& a, const std::string& who,
                                  const std::filesystem::path& base_dir) {
  using A = onnx::AttributeProto;
  switch (a.type()) {
    case A::INT: return int64_t(a.i());
    case A::FLOAT: return double(a.f());
    case A::STRING: return a.s();
    case A::INTS: return std::vector<int64_t>(a.ints().begin(), a.ints().end());
    case A::FLOATS: return std::vector<double>(a.floats().begin(), a.floats().end());
    case A::STRINGS: return std::vector<std::string>(a.strings().begin(), a.strings().end());
    case A::TENSOR: return constant_from_tensor_proto(a.t(), base_dir, who + " attribute '" + a.name() + "'");
    default:
      throw CompileError(who + ": attribute '" + a.name() + "' of type " + A::AttributeType_Name(a.type()) +
                         " is not supported inside a subgraph");
  }
}

// Static type of a subgraph value from shape inference's ValueInfo.
void value_type(const onnx::ValueInfoProto& vi, const std::string& who, DType* dt, Shape* shape) {
  if (!vi.type().has_tensor_type() || !vi.type().tensor_type().has_shape())
    throw CompileError(who + ": subgraph value '" + vi.name() + "' is not a tensor of known shape");
  const auto& tt = vi.type().tensor_type();
  *dt = DType(tt.elem_type());
  shape->clear();
  for (const auto& d : tt.shape().dim()) {
    if (!d.has_dim_value()) throw CompileError(who + ": subgraph value '" + vi.name() + "' has a dynamic dimension");
    shape->push_back(d.dim_value());
  }
}

// Like value_type, but says false instead of throwing when the type is not a static tensor.
bool declared_type(const onnx::ValueInfoProto& vi, DType* dt, Shape* shape) {
  if (!vi.type().has_tensor_type() || !vi.type().tensor_type().has_shape()) return false;
  try {
    value_type(vi, "", dt, shape);
  } catch (const CompileError&) {
    return false;
  }
  return true;
}

// The number of elements of sequence `s` when import already knows it: a list
// built by SequenceEmpty / SequenceConstruct (a sequence graph input given with
// --sequence-input is one) and edited by SequenceInsert / SequenceErase, seen
// through Identity. The list itself is resolved later (sequence/resolve_sequences.h).
std::optional<int64_t> import_sequence_length(const Value* s, int depth) {
  if (!s || !s->is_sequence || !s->producer || depth > 256) return std::nullopt;
  const Node& p = *s->producer;
  if (p.op_type == "SequenceEmpty") return 0;
  if (p.op_type == "SequenceConstruct") return int64_t(p.inputs.size());
  if (p.op_type == "Identity") return import_sequence_length(p.input(0), depth + 1);
  auto n = import_sequence_length(p.input(0), depth + 1);
  if (!n) return std::nullopt;
  if (p.op_type == "SequenceInsert") return *n + 1;
  if (p.op_type == "SequenceErase" && *n > 0) return *n - 1;
  return std::nullopt;
}

// A node with `n`'s name, type and attributes but no inputs or outputs, to be
// given stand-in values for shape inference or evaluation.
Node detached_copy(const Node& n) {
  Node copy;
  copy.name = n.name;
  copy.op_type = n.op_type;
  copy.domain = n.domain;
  copy.opset = n.opset;
  copy.attrs = n.attrs;
  return copy;
}

// The compile-time value of `v`: its constant, or the result of evaluating the
// chain of nodes that computes it when every leaf is a constant (a trip count
// written as Ceil(Div(...)) of constants) or the SequenceLength of a sequence of
// known length (an expanded SequenceMap's trip count). Graph values are never
// changed: the evaluation runs on private copies kept in `tmp`.
ConstantPtr compile_time_value(const Value* v, int depth, std::deque<Value>* tmp) {
  if (v->constant) return v->constant;
  if (!v->producer || depth > 64 || !v->shape_known) return nullptr;
  const Node& p = *v->producer;
  if (p.op_type == "SequenceLength" && (p.domain.empty() || p.domain == "ai.onnx")) {
    auto n = import_sequence_length(p.input(0), 0);
    return n ? Constant::from_int64s({}, {*n}) : nullptr;
  }
  Node copy = detached_copy(p);
  for (const Value* in : p.inputs) {
    if (!in) {
      copy.inputs.push_back(nullptr);
      continue;
    }
    ConstantPtr c = compile_time_value(in, depth + 1, tmp);
    if (!c) return nullptr;
    tmp->push_back(*in);
    tmp->back().producer = nullptr;
    tmp->back().users.clear();
    tmp->back().constant = c;
    copy.inputs.push_back(&tmp->back());
  }
  size_t index = 0;
  for (size_t i = 0; i < p.outputs.size(); ++i) {
    if (p.outputs[i] == v) index = i;
    tmp->push_back(*p.outputs[i]);
    tmp->back().producer = nullptr;
    tmp->back().users.clear();
    copy.outputs.push_back(&tmp->back());
  }
  EvalResult r = evaluate_node(copy, int64_t(1) << 20);
  return r.evaluated && index < r.outputs.size() ? r.outputs[index] : nullptr;
}

// The value `v` is known to hold at compile time when it is a bool constant (seen
// through Identity nodes): 1 all true, 0 all false, -1 unknown.
int known_bool(const Value* v) {
  while (!v->constant && v->producer && v->producer->op_type == "Identity" && v->producer->input(0))
    v = v->producer->input(0);
  if (!v->constant || v->constant->dtype() != DType::Bool || v->constant->num_elements() < 1) return -1;
  const uint8_t* d = v->constant->data();
  bool all_true = true, all_false = true;
  for (int64_t i = 0; i < v->constant->num_elements(); ++i) (d[i] ? all_false : all_true) = false;
  return all_true ? 1 : all_false ? 0 : -1;
}

// Whether a Loop body's cond_out is, in the body itself, its cond_in passed
// through Identity nodes or a constant true: the loop then never stops early.
bool body_never_stops(const onnx::GraphProto& body) {
  if (body.input_size() < 2 || body.output_size() < 1) return false;
  std::string nm = body.output(0).name();
  for (int guard = 0; guard <= body.node_size(); ++guard) {
    if (nm == body.input(1).name()) return true;
    for (const auto& t : body.initializer())
      if (t.name() == nm) return false;  // an initializer: let the general path decide
    const onnx::NodeProto* producer = nullptr;
    for (const auto& n : body.node())
      for (const auto& o : n.output())
        if (o == nm) producer = &n;
    if (!producer) return false;
    if (producer->op_type() == "Identity" && producer->input_size() == 1) {
      nm = producer->input(0);
      continue;
    }
    if (producer->op_type() == "Constant" && producer->attribute_size() == 1 && producer->attribute(0).name() == "value") {
      const auto& t = producer->attribute(0).t();
      if (t.data_type() != onnx::TensorProto::BOOL) return false;
      if (t.has_raw_data()) return !t.raw_data().empty() && t.raw_data().find('\0') == std::string::npos;
      if (t.int32_data_size() == 0) return false;
      for (int32_t x : t.int32_data())
        if (!x) return false;
      return true;
    }
    return false;
  }
  return false;
}

// A bool known at compile time (known = 0 / 1) or computed at run time (v, a scalar).
struct Cond {
  int known = 1;
  Value* v = nullptr;
  static Cond of(bool b) { return Cond{b ? 1 : 0, nullptr}; }
};

// Upper bound on the nodes one unrolled Loop may add (steps x body nodes), checked
// before unrolling; Graph::add_node enforces the same limit on the whole graph
// (nested loops, several loops).
constexpr int64_t kMaxUnrolledLoopNodes = kMaxGraphNodes;

class Flattener {
 public:
  explicit Flattener(const SubgraphScope& s) : s_(s), g_(*s.graph) {}

  // Imports one instance of `body`, its inputs bound to `bound`; returns its outputs.
  // `open_outputs`: an output whose shape is not known yet is inferred later (a
  // taken If branch); else every output needs a static shape now.
  std::vector<Value*> import_body(const onnx::GraphProto& body, const std::vector<Value*>& bound,
                                  const std::string& prefix, const std::string& who, bool open_outputs = false) {
    if (size_t(body.input_size()) != bound.size())
      throw CompileError(who + ": subgraph '" + body.name() + "' takes " + std::to_string(body.input_size()) +
                         " inputs; " + std::to_string(bound.size()) + " are bound");
    std::map<std::string, Value*> local;
    for (int i = 0; i < body.input_size(); ++i) local[body.input(i).name()] = bound[size_t(i)];
    for (const auto& t : body.initializer()) {
      auto c = constant_from_tensor_proto(t, s_.base_dir, who + " subgraph initializer '" + t.name() + "'");
      Value* v = g_.add_value(g_.unique_name(prefix + t.name()), c->dtype(), c->shape());
      v->constant = c;
      local[t.name()] = v;
    }
    std::map<std::string, const onnx::ValueInfoProto*> infos;
    for (const auto& vi : body.value_info()) infos[vi.name()] = &vi;
    for (const auto& vi : body.output()) infos[vi.name()] = &vi;
    auto lookup = [&](const std::string& nm) -> Value* {
      auto it = local.find(nm);
      return it != local.end() ? it->second : s_.lookup(nm);
    };
    int index = 0;
    for (const auto& np : body.node()) {
      const std::string name = g_.unique_name(prefix + (np.name().empty() ? np.op_type() + "_" + std::to_string(index) : np.name()));
      ++index;
      const std::string nwho = np.op_type() + " '" + name + "'";
      if (!np.domain().empty() && np.domain() != "ai.onnx")
        throw CompileError(nwho + ": operator domain '" + np.domain() + "' is not supported");
      if (np.op_type() == "Constant") {
        if (np.attribute_size() != 1 || np.attribute(0).name() != "value")
          throw CompileError(nwho + ": only Constant(value=tensor) is supported inside a subgraph");
        auto c = constant_from_tensor_proto(np.attribute(0).t(), s_.base_dir, nwho);
        Value* v = g_.add_value(g_.unique_name(prefix + np.output(0)), c->dtype(), c->shape());
        v->constant = c;
        local[np.output(0)] = v;
        continue;
      }
      if (is_flattened_control_flow(np.op_type())) {
        // Nested control flow: the inner node sees this body's values first.
        SubgraphScope inner = s_;
        inner.lookup = lookup;
        inner.make_output = [&](const std::string& nm) { return make_local(nm, infos, prefix, nwho, &local); };
        inner.make_open_output = inner.make_output;  // make_local leaves a shape inference could not tell open
        inner.make_output_typed = [&](const std::string& nm, DType dt, const Shape& shape) {
          auto it = infos.find(nm);
          DType idt;
          Shape ishape;
          if (it != infos.end() &&
              (it->second->type().has_sequence_type() || declared_type(*it->second, &idt, &ishape)))
            return make_local(nm, infos, prefix, nwho, &local);
          Value* v = g_.add_value(g_.unique_name(prefix + nm), dt, shape);
          local[nm] = v;
          return v;
        };
        flatten_control_flow(np, name, inner);
        continue;
      }
      std::vector<Value*> ins;
      for (const auto& in : np.input()) {
        if (in.empty()) {
          ins.push_back(nullptr);
          continue;
        }
        Value* v = lookup(in);
        if (!v) throw CompileError(nwho + ": input '" + in + "' is not defined in the subgraph or its scope");
        ins.push_back(v);
      }
      while (!ins.empty() && ins.back() == nullptr) ins.pop_back();
      std::vector<Value*> outs;
      for (const auto& out : np.output()) {
        if (out.empty()) outs.push_back(g_.add_value(g_.unique_name(name + "_unused"), DType::Undefined, {}));
        else outs.push_back(make_local(out, infos, prefix, nwho, &local));
      }
      Node* n = g_.add_node(np.op_type(), name, ins, outs);
      for (const auto& a : np.attribute()) n->attrs[a.name()] = convert_plain_attribute(a, nwho, s_.base_dir);
      if (std::any_of(outs.begin(), outs.end(), [](const Value* v) { return !v->shape_known; })) infer_with_constants(*n);
    }
    std::vector<Value*> outs;
    for (const auto& o : body.output()) {
      Value* v = lookup(o.name());
      if (!v) throw CompileError(who + ": subgraph output '" + o.name() + "' is not produced");
      if (!v->shape_known && !v->is_sequence && !open_outputs)
        throw CompileError(who + ": subgraph output '" + o.name() + "' has no static shape (Kiln needs static shapes)");
      outs.push_back(v);
    }
    return outs;
  }

  Value* make_local(const std::string& nm, const std::map<std::string, const onnx::ValueInfoProto*>& infos,
                    const std::string& prefix, const std::string& who, std::map<std::string, Value*>* local) {
    auto it = infos.find(nm);
    if (it == infos.end()) throw CompileError(who + ": subgraph value '" + nm + "' has no type after shape inference");
    DType dt;
    Shape shape;
    const auto& type = it->second->type();
    if (type.has_sequence_type()) {
      // A sequence of tensors (a loop-carried list, an If branch's result): no
      // shape; sequence/resolve_sequences.h resolves it into its elements.
      const auto& st = type.sequence_type();
      if (!st.has_elem_type() || !st.elem_type().has_tensor_type())
        throw CompileError(who + ": subgraph value '" + nm + "' is a sequence of non-tensors, which Kiln does not support");
      const int32_t et = st.elem_type().tensor_type().elem_type();
      Value* v = g_.add_value(g_.unique_name(prefix + nm), dtype_is_known(et) ? DType(et) : DType::Undefined, {});
      v->is_sequence = true;
      v->shape_known = false;
      (*local)[nm] = v;
      return v;
    }
    if (type.has_tensor_type() && dtype_is_known(type.tensor_type().elem_type()) &&
        !declared_type(*it->second, &dt, &shape)) {
      // A tensor whose shape ONNX's inference could not tell from the body alone
      // (it depends on a value the body computes, or on an untyped body input): it
      // is inferred once the node is added (infer_with_constants), else after folding.
      Value* v = g_.add_value(g_.unique_name(prefix + nm), DType(type.tensor_type().elem_type()), {});
      v->shape_known = false;
      (*local)[nm] = v;
      return v;
    }
    value_type(*it->second, who, &dt, &shape);
    Value* v = g_.add_value(g_.unique_name(prefix + nm), dt, shape);
    (*local)[nm] = v;
    return v;
  }

  // Infers the output types of `n` with ONNX's inference function, giving it the
  // data of every input known at compile time (an unrolled Loop step's
  // iteration_num and what is computed from it, such as Slice bounds). The graph is
  // not changed: folding computes those values later.
  static void infer_with_constants(Node& n) {
    std::deque<Value> tmp;
    Node copy = detached_copy(n);
    for (Value* in : n.inputs) {
      ConstantPtr c = in && !in->constant ? compile_time_value(in, 0, &tmp) : nullptr;
      if (!c) {
        copy.inputs.push_back(in);
        continue;
      }
      tmp.push_back(*in);
      tmp.back().producer = nullptr;
      tmp.back().users.clear();
      tmp.back().constant = c;
      copy.inputs.push_back(&tmp.back());
    }
    for (Value* out : n.outputs) {
      tmp.push_back(*out);
      tmp.back().producer = nullptr;
      tmp.back().users.clear();
      copy.outputs.push_back(&tmp.back());
    }
    if (!infer_node_shapes(copy)) return;
    for (size_t i = 0; i < n.outputs.size(); ++i) {
      n.outputs[i]->dtype = copy.outputs[i]->dtype;
      n.outputs[i]->shape = copy.outputs[i]->shape;
      n.outputs[i]->shape_known = true;
    }
  }

  Value* constant_shape(const Shape& s) {
    Value* v = g_.add_value(g_.unique_name("shape"), DType::Int64, {int64_t(s.size())});
    v->constant = Constant::from_int64s({int64_t(s.size())}, s);
    return v;
  }

  Value* reshape(Value* in, const Shape& s, const std::string& name) {
    if (in->shape == s) return in;
    Value* out = g_.add_value(g_.unique_name(name), in->dtype, s);
    g_.add_node("Reshape", g_.unique_name(name), {in, constant_shape(s)}, {out});
    return out;
  }

  void flatten_if(const onnx::NodeProto& np, const std::string& name) {
    const std::string who = "If '" + name + "'";
    const onnx::GraphProto *then_g = nullptr, *else_g = nullptr;
    for (const auto& a : np.attribute()) {
      if (a.name() == "then_branch") then_g = &a.g();
      if (a.name() == "else_branch") else_g = &a.g();
    }
    if (!then_g || !else_g || np.input_size() != 1) throw CompileError(who + ": malformed If");
    Value* cond = s_.lookup(np.input(0));
    if (!cond || cond->dtype != DType::Bool || (cond->shape_known && cond->num_elements() != 1))
      throw CompileError(who + ": the condition must be a single bool");
    if (then_g->output_size() != np.output_size() || else_g->output_size() != np.output_size())
      throw CompileError(who + ": branches and node disagree on the number of outputs");
    std::vector<Value*> outs;
    bool sequences = false;
    for (int i = 0; i < np.output_size(); ++i) {
      outs.push_back(s_.make_open_output ? s_.make_open_output(np.output(i)) : s_.make_output(np.output(i)));
      sequences |= outs.back()->is_sequence;
    }
    const int known = known_bool(cond);
    if (known >= 0) return take_branch(known ? *then_g : *else_g, outs, name + (known ? ".then." : ".else."), who);
    // Sequence outputs keep the import-time selection (one KilnSelect of the two
    // lists, resolved element-wise by sequence/resolve_sequences.h).
    if (sequences) return select_branches(*then_g, *else_g, cond, outs, name, who);
    // The condition is not known yet: the If stays one node until folding has
    // decided it (expand_deferred_ifs). The values its branches read from this
    // scope become its inputs, so passes see the uses and keep them up to date.
    std::set<std::string> free;
    free_names(*then_g, {}, &free);
    free_names(*else_g, {}, &free);
    std::vector<Value*> ins = {cond};
    std::vector<std::string> captured;
    for (const auto& nm : free)
      if (Value* v = s_.lookup(nm)) {
        ins.push_back(v);
        captured.push_back(nm);
      }
    Node* n = g_.add_node("If", name, ins, outs);
    n->attrs["then_branch"] = then_g->SerializeAsString();
    n->attrs["else_branch"] = else_g->SerializeAsString();
    n->attrs["captured"] = captured;
    n->attrs["base_dir"] = s_.base_dir.string();
  }

  // Names a subgraph reads that it does not define (at any depth).
  static void free_names(const onnx::GraphProto& g, std::set<std::string> defined, std::set<std::string>* out) {
    for (const auto& v : g.input()) defined.insert(v.name());
    for (const auto& t : g.initializer()) defined.insert(t.name());
    for (const auto& n : g.node())
      for (const auto& o : n.output()) defined.insert(o);
    for (const auto& n : g.node()) {
      for (const auto& i : n.input())
        if (!i.empty() && !defined.count(i)) out->insert(i);
      for (const auto& a : n.attribute()) {
        if (a.has_g()) free_names(a.g(), defined, out);
        for (const auto& sg : a.graphs()) free_names(sg, defined, out);
      }
    }
  }

  // The If's outputs `outs` are the branch's results (through Identity, a view):
  // only its shapes count; an output of unknown shape is inferred later.
  void take_branch(const onnx::GraphProto& branch, const std::vector<Value*>& outs, const std::string& prefix,
                   const std::string& who) {
    std::vector<Value*> r = import_body(branch, {}, prefix, who, /*open_outputs=*/true);
    for (size_t i = 0; i < outs.size(); ++i) {
      Value* out = outs[i];
      if (r[i]->is_sequence != out->is_sequence)
        throw CompileError(who + ": output " + std::to_string(i) + " is a sequence in one of branch and node only");
      if (!r[i]->is_sequence) {
        if (r[i]->dtype != out->dtype && out->dtype != DType::Undefined)
          throw CompileError(who + ": output " + std::to_string(i) + " is " + dtype_name(r[i]->dtype) +
                             " in the branch and " + dtype_name(out->dtype) + " in the node");
        out->dtype = r[i]->dtype;
        out->shape_known = r[i]->shape_known;
        out->shape = r[i]->shape_known ? r[i]->shape : Shape{};
      }
      g_.add_node("Identity", g_.unique_name(prefix + "out"), {r[i]}, {out});
    }
  }

  // Both branches run; one KilnSelect per output copies the one the bool picks.
  void select_branches(const onnx::GraphProto& then_g, const onnx::GraphProto& else_g, Value* cond,
                       const std::vector<Value*>& outs, const std::string& name, const std::string& who) {
    std::vector<Value*> t = import_body(then_g, {}, name + ".then.", who);
    std::vector<Value*> e = import_body(else_g, {}, name + ".else.", who);
    for (size_t i = 0; i < t.size(); ++i) {
      Value* out = outs[i];
      if (t[i]->is_sequence || e[i]->is_sequence || out->is_sequence) {
        // Sequences: one KilnSelect of the two lists, resolved element by element
        // once both are known (sequence/resolve_sequences.cpp); the branches must
        // give lists of one length and element shapes.
        if (!t[i]->is_sequence || !e[i]->is_sequence || !out->is_sequence || t[i]->dtype != e[i]->dtype ||
            t[i]->dtype != out->dtype)
          throw CompileError(who + ": output " + std::to_string(i) +
                             " is not a sequence of one element type in both branches and the node");
        g_.add_node("KilnSelect", g_.unique_name(name + ".select"), {cond, t[i], e[i]}, {out});
        continue;
      }
      if (t[i]->shape != e[i]->shape || t[i]->dtype != e[i]->dtype)
        throw CompileError(who + ": output " + std::to_string(i) + " is " + shape_str(t[i]->shape) +
                           " in then_branch and " + shape_str(e[i]->shape) +
                           " in else_branch; Kiln needs one static type and shape");
      // The node's own type (a dynamic dimension the model declared) gives way to the branches'.
      out->dtype = t[i]->dtype;
      out->shape = t[i]->shape;
      out->shape_known = true;
      g_.add_node("KilnSelect", g_.unique_name(name + ".select"), {cond, t[i], e[i]}, {out});
    }
  }

  // A deferred If (see flatten_if) whose condition is now decided (`known` 0 / 1) or,
  // with `known` -1, one the settled graph still computes at run time.
  void expand_if(const onnx::GraphProto& then_g, const onnx::GraphProto& else_g, Value* cond,
                 const std::vector<Value*>& outs, const std::string& name, int known) {
    const std::string who = "If '" + name + "'";
    if (known >= 0) take_branch(known ? then_g : else_g, outs, name + (known ? ".then." : ".else."), who);
    else select_branches(then_g, else_g, cond, outs, name, who);
  }

  void flatten_scan(const onnx::NodeProto& np, const std::string& name, int64_t opset) {
    const std::string who = "Scan '" + name + "'";
    const onnx::GraphProto* body = nullptr;
    int64_t m = -1;
    std::map<std::string, std::vector<int64_t>> ints;
    for (const auto& a : np.attribute()) {
      if (a.name() == "body") body = &a.g();
      else if (a.name() == "num_scan_inputs") m = a.i();
      else if (a.type() == onnx::AttributeProto::INTS) ints[a.name()] = {a.ints().begin(), a.ints().end()};
    }
    if (!body || m < 1) throw CompileError(who + ": malformed Scan");
    // Opset 8 has a leading optional sequence_lens input and a batch dim on every
    // input and output (scan axis 1). Kiln takes batch 1 without sequence_lens and
    // reshapes the batch dim away around the body.
    const bool v8 = opset < 9;
    std::vector<Value*> ins;
    for (int i = v8 ? 1 : 0; i < np.input_size(); ++i) {
      Value* v = s_.lookup(np.input(i));
      if (!v) throw CompileError(who + ": input '" + np.input(i) + "' is not defined");
      ins.push_back(v);
    }
    if (v8 && np.input_size() > 0 && !np.input(0).empty())
      throw CompileError(who + ": sequence_lens is not supported (opset 8 Scan)");
    const size_t nstate = ins.size() - size_t(m);
    if (ins.size() < size_t(m)) throw CompileError(who + ": fewer inputs than num_scan_inputs");
    auto attr_at = [&](const char* k, size_t i) -> int64_t {
      auto it = ints.find(k);
      return it != ints.end() && i < it->second.size() ? it->second[i] : 0;
    };
    std::vector<Value*> state(ins.begin(), ins.begin() + std::ptrdiff_t(nstate));
    std::vector<Value*> scans(ins.begin() + std::ptrdiff_t(nstate), ins.end());
    if (v8)
      for (Value* v : ins)
        if (v->shape.empty() || v->shape[0] != 1)
          throw CompileError(who + ": opset 8 Scan with batch size other than 1 is not supported");
    int64_t steps = -1;
    std::vector<int64_t> axes;
    for (size_t j = 0; j < scans.size(); ++j) {
      const int64_t r = int64_t(scans[j]->shape.size());
      int64_t ax = v8 ? 1 : attr_at("scan_input_axes", j);
      if (ax < 0) ax += r;
      if (ax < 0 || ax >= r) throw CompileError(who + ": scan_input_axes out of range");
      if (steps >= 0 && scans[j]->shape[size_t(ax)] != steps)
        throw CompileError(who + ": scanned inputs have different lengths");
      steps = scans[j]->shape[size_t(ax)];
      axes.push_back(ax);
    }
    // Body-side shapes of the state come from the body's declared inputs.
    std::vector<Shape> body_in_shapes;
    for (const auto& vi : body->input()) {
      DType dt;
      Shape s;
      value_type(vi, who, &dt, &s);
      body_in_shapes.push_back(s);
    }
    if (body_in_shapes.size() != ins.size()) throw CompileError(who + ": body inputs do not match the node's");
    for (size_t i = 0; i < nstate; ++i) state[i] = reshape(state[i], body_in_shapes[i], name + ".state_in");
    const size_t nscan_out = size_t(body->output_size()) - nstate;
    std::vector<std::vector<Value*>> per_step(nscan_out);
    for (int64_t t = 0; t < steps; ++t) {
      std::vector<Value*> bound = state;
      for (size_t j = 0; j < scans.size(); ++j) {
        const Value* x = scans[j];
        const int64_t idx = attr_at("scan_input_directions", j) ? steps - 1 - t : t;
        int64_t outer = 1, inner = 1;
        for (size_t d = 0; d < x->shape.size(); ++d)
          if (int64_t(d) < axes[j]) outer *= x->shape[d];
          else if (int64_t(d) > axes[j]) inner *= x->shape[d];
        Value* slice = g_.add_value(g_.unique_name(name + ".slice"), x->dtype, body_in_shapes[nstate + j]);
        if (slice->num_elements() != outer * inner) throw CompileError(who + ": body input shape does not match a slice");
        Node* n = g_.add_node("KilnTakeSlice", g_.unique_name(name + ".take"), {scans[j]}, {slice});
        n->attrs["outer"] = outer;
        n->attrs["axis_len"] = steps;
        n->attrs["inner"] = inner;
        n->attrs["index"] = idx;
        bound.push_back(slice);
      }
      std::vector<Value*> outs = import_body(*body, bound, name + ".step" + std::to_string(t) + ".", who);
      for (size_t i = 0; i < nstate; ++i) state[i] = outs[i];
      for (size_t k = 0; k < nscan_out; ++k) per_step[k].push_back(outs[nstate + k]);
    }
    for (size_t i = 0; i < nstate; ++i) {
      Value* out = s_.make_output(np.output(int(i)));
      Value* src = reshape(state[i], out->shape, name + ".state_out");
      g_.add_node("Identity", g_.unique_name(name + ".final"), {src}, {out});
    }
    for (size_t k = 0; k < nscan_out; ++k) {
      Value* out = s_.make_output(np.output(int(nstate + k)));
      const int64_t r = int64_t(out->shape.size());
      int64_t ax = v8 ? 1 : attr_at("scan_output_axes", k);
      if (ax < 0) ax += r;
      if (ax < 0 || ax >= r || steps < 1) throw CompileError(who + ": scan output " + std::to_string(k) + " is not supported");
      Shape piece = out->shape;
      piece[size_t(ax)] = 1;
      std::vector<Value*> parts;
      for (Value* v : per_step[k]) parts.push_back(reshape(v, piece, name + ".piece"));
      if (attr_at("scan_output_directions", k)) std::reverse(parts.begin(), parts.end());
      Node* c = g_.add_node("Concat", g_.unique_name(name + ".stack"), parts, {out});
      c->attrs["axis"] = ax;
    }
  }

  // ---- Loop ---------------------------------------------------------------

  Value* bool_const(bool b, const Shape& shape) {
    Value* v = g_.add_value(g_.unique_name(b ? "true" : "false"), DType::Bool, shape);
    v->constant = Constant::from_bytes(DType::Bool, shape, std::vector<uint8_t>(size_t(shape_elements(shape)), b ? 1 : 0));
    return v;
  }

  Cond cond_of(Value* v, const std::string& name) {
    const int k = known_bool(v);
    if (k >= 0) return Cond::of(k == 1);
    return Cond{-1, reshape(v, {}, name + ".cond")};
  }

  Cond logic(const char* op, Cond a, Cond b, const std::string& name) {
    const bool is_and = std::string(op) == "And";
    if (a.known == (is_and ? 0 : 1) || b.known == (is_and ? 0 : 1)) return Cond::of(!is_and);
    if (a.known >= 0) return b;
    if (b.known >= 0) return a;
    Value* out = g_.add_value(g_.unique_name(name + ".active"), DType::Bool, {});
    g_.add_node(op, g_.unique_name(name + "." + op), {a.v, b.v}, {out});
    return Cond{-1, out};
  }

  Cond negate(Cond a, const std::string& name) {
    if (a.known >= 0) return Cond::of(a.known == 0);
    Value* out = g_.add_value(g_.unique_name(name + ".not"), DType::Bool, {});
    g_.add_node("Not", g_.unique_name(name + ".not"), {a.v}, {out});
    return Cond{-1, out};
  }

  // `t < M`: true without M, known with a constant M, else a Less node.
  Cond below_trip_count(int64_t t, Value* m, std::optional<int64_t> trips, const std::string& name) {
    if (!m) return Cond::of(true);
    if (trips) return Cond::of(t < *trips);
    Value* tv = g_.add_value(g_.unique_name(name + ".iter"), DType::Int64, {});
    tv->constant = Constant::from_int64s({}, {t});
    Value* out = g_.add_value(g_.unique_name(name + ".in_range"), DType::Bool, {});
    g_.add_node("Less", g_.unique_name(name + ".less"), {tv, reshape(m, {}, name + ".m")}, {out});
    return Cond{-1, out};
  }

  // The node's output `nm` with the type the flattening computed. Shape inference
  // may know it (it must then agree) or not (a scan output's length).
  Value* loop_output(const std::string& nm, DType dt, const Shape& shape, const std::string& who) {
    Value* out = s_.make_output_typed(nm, dt, shape);
    if (out->dtype != dt || out->shape != shape)
      throw CompileError(who + ": output '" + nm + "' is declared " + std::string(dtype_name(out->dtype)) + " " +
                         shape_str(out->shape) + " but the unrolled loop computes " + dtype_name(dt) + " " +
                         shape_str(shape));
    return out;
  }

  // Loop: unrolled to a static number of steps. Step t is imported with
  // iteration_num = t and cond_in = true (a step that runs always starts with a
  // true condition). Whether step t runs at all is `active_t`, a bool known at
  // compile time or computed by the schedule: active_0 = cond && 0 < M, active_{t+1}
  // = active_t && cond_out_t && t+1 < M. The number of steps is
  //   - M, when M is a compile-time constant and nothing stops the loop early, or
  //     when there are no scan outputs: each loop-carried value after step t is
  //     KilnSelect(active_t, body output, previous value), so the state freezes at
  //     the step where the loop would have stopped (exact);
  //   - else the static length of the scan outputs as the model declares them
  //     (their length is the iteration count, so it is only static when the model
  //     says so). A KilnGuard on every output checks at run time that the loop runs
  //     exactly that many iterations and makes the run fail (KILN_ERR_BAD_ARGUMENT)
  //     when it would not, instead of returning outputs of the wrong shape.
  void flatten_loop(const onnx::NodeProto& np, const std::string& name) {
    const std::string who = "Loop '" + name + "'";
    const onnx::GraphProto* body = nullptr;
    for (const auto& a : np.attribute())
      if (a.name() == "body") body = &a.g();
    if (!body || np.input_size() < 2) throw CompileError(who + ": malformed Loop");
    const size_t ncarried = size_t(np.input_size()) - 2;
    if (size_t(body->input_size()) != 2 + ncarried || size_t(body->output_size()) < 1 + ncarried)
      throw CompileError(who + ": the body's inputs and outputs do not match the node's loop-carried values");
    const size_t nscan = size_t(body->output_size()) - 1 - ncarried;
    if (size_t(np.output_size()) > ncarried + nscan) throw CompileError(who + ": more outputs than the body computes");

    auto input = [&](int i, const char* what) -> Value* {
      if (np.input(i).empty()) return nullptr;
      Value* v = s_.lookup(np.input(i));
      if (!v) throw CompileError(who + ": " + what + " '" + np.input(i) + "' is not defined");
      return v;
    };
    Value* m = input(0, "trip count");
    Value* cond = input(1, "condition");
    if (m && (m->dtype != DType::Int64 || !m->shape_known || m->num_elements() != 1))
      throw CompileError(who + ": the trip count M must be a single int64");
    if (cond && (cond->dtype != DType::Bool || !cond->shape_known || cond->num_elements() != 1))
      throw CompileError(who + ": the condition must be a single bool");
    std::vector<Value*> state;
    for (size_t i = 0; i < ncarried; ++i) state.push_back(input(int(2 + i), "initial value"));
    for (size_t i = 0; i < ncarried; ++i)
      if (!state[i] || (!state[i]->shape_known && !state[i]->is_sequence))
        throw CompileError(who + ": loop-carried value " + std::to_string(i) + " has no initial value of static shape");
    // A loop-carried sequence is a compile-time list (sequence/resolve_sequences.h):
    // each unrolled step edits it, which needs a static number of steps and no
    // run-time choice between two lists (a loop that may stop early).
    std::string carried_sequence;
    for (size_t i = 0; i < ncarried && carried_sequence.empty(); ++i)
      if (state[i]->is_sequence)
        carried_sequence = "loop-carried value " + std::to_string(i) + " ('" + np.input(int(2 + i)) + "') is a sequence";

    std::optional<int64_t> trips;
    if (m) {
      std::deque<Value> tmp;
      if (ConstantPtr c = compile_time_value(m, 0, &tmp)) trips = std::max<int64_t>(0, c->as_int64(0));
    }
    const Cond cond0 = cond ? cond_of(cond, name) : Cond::of(true);
    const bool stops_early = cond0.known != 1 || !body_never_stops(*body);

    // How many steps, and whether the run must check that exactly that many run.
    int64_t steps = 0;
    bool guarded = false;
    std::vector<Value*> scan_outs(nscan, nullptr);
    if (nscan > 0 && (stops_early || !trips)) {
      const std::string why = !trips ? (m ? "the trip count M ('" + np.input(0) + "') is not a compile-time constant"
                                          : "there is no trip count M")
                                     : "the loop may stop early (its condition is computed at run time)";
      int64_t len = -1;
      for (size_t k = 0; k < nscan; ++k) {
        const int o = int(ncarried + k);
        if (o >= np.output_size() || np.output(o).empty()) continue;
        try {
          scan_outs[k] = s_.make_output(np.output(o));
        } catch (const CompileError&) {
          throw CompileError(who + ": scan output '" + np.output(o) + "' has a data-dependent length (" + why +
                             "); Kiln needs static shapes: give the output a static shape in the model, or make M a "
                             "constant and the loop run all M iterations");
        }
        const Value* v = scan_outs[k];
        if (v->shape.empty() || (len >= 0 && v->shape[0] != len))
          throw CompileError(who + ": scan outputs do not declare one static number of iterations");
        len = v->shape[0];
      }
      if (len < 0) {
        if (!trips)
          throw CompileError(who + ": " + why + " and no scan output of static length bounds the loop; Kiln unrolls "
                             "Loop and needs M to be a constant (an initializer, a Constant or an expression of them)");
      } else {
        if (trips && len > *trips)
          throw CompileError(who + ": the scan outputs are declared with " + std::to_string(len) +
                             " iterations but the trip count is " + std::to_string(*trips));
        steps = len;
        guarded = true;
      }
    }
    if (!guarded) {
      if (!trips && !carried_sequence.empty())
        throw CompileError(who + ": " + carried_sequence + " and " +
                           (m ? "the trip count M ('" + np.input(0) + "') is not a compile-time constant"
                              : std::string("there is no trip count M")) +
                           "; Kiln builds sequences at compile time, so a loop that edits one must have a static "
                           "trip count (an initializer, a Constant, an expression of them, or the SequenceLength of "
                           "a sequence of known length)");
      if (!trips)
        throw CompileError(who + ": " +
                           (m ? "the trip count M ('" + np.input(0) + "') is not a compile-time constant"
                              : std::string("there is no trip count M")) +
                           "; Kiln unrolls Loop and needs M to be a constant (an initializer, a Constant or an "
                           "expression of them), or scan outputs of static length");
      steps = *trips;
    }
    if (guarded && !carried_sequence.empty())
      throw CompileError(who + ": " + carried_sequence + " and the number of iterations is only checked at run time " +
                         "(a KilnGuard); Kiln builds sequences at compile time and needs a static trip count");
    if (guarded && steps < 1) throw CompileError(who + ": a loop with empty scan outputs is not supported");
    // steps may be anything up to INT64_MAX: compared by division, never multiplied.
    if (steps > kMaxUnrolledLoopNodes / std::max(1, body->node_size()))
      throw CompileError(who + ": unrolling " + std::to_string(steps) + " iterations of a " +
                         std::to_string(body->node_size()) + "-node body exceeds Kiln's limit of " +
                         std::to_string(kMaxUnrolledLoopNodes) + " nodes");

    // Body-side types: iteration_num, cond_in, then the loop-carried values.
    std::vector<Shape> body_shapes;
    for (int i = 0; i < body->input_size(); ++i) {
      DType dt;
      Shape s;
      if (!declared_type(body->input(i), &dt, &s)) s = i == 0 || i == 1 ? Shape{} : state[size_t(i) - 2]->shape;
      body_shapes.push_back(s);
    }
    for (size_t i = 0; i < ncarried; ++i)
      if (!state[i]->is_sequence) state[i] = reshape(state[i], body_shapes[2 + i], name + ".state_in");

    Cond active = logic("And", cond0, below_trip_count(0, m, trips, name), name);
    Cond exact = Cond::of(true);  // the loop runs exactly `steps` iterations
    std::vector<std::vector<Value*>> per_step(nscan);
    Value* cond_in = bool_const(true, body_shapes[1]);
    for (int64_t t = 0; t < steps; ++t) {
      Value* iter = g_.add_value(g_.unique_name(name + ".iteration"), DType::Int64, body_shapes[0]);
      iter->constant = Constant::from_int64s(body_shapes[0], {t});
      std::vector<Value*> bound = {iter, cond_in};
      bound.insert(bound.end(), state.begin(), state.end());
      const std::string step = name + ".step" + std::to_string(t);
      std::vector<Value*> outs = import_body(*body, bound, step + ".", who);
      if (outs[0]->dtype != DType::Bool || outs[0]->num_elements() != 1)
        throw CompileError(who + ": the body's condition output must be a single bool");
      for (size_t i = 0; i < ncarried; ++i) {
        Value* next = outs[1 + i];
        if (state[i]->is_sequence || next->is_sequence) {
          if (!state[i]->is_sequence || !next->is_sequence || next->dtype != state[i]->dtype)
            throw CompileError(who + ": loop-carried value " + std::to_string(i) +
                               " is a sequence on one side of the body and not on the other, or changes element type");
          if (!guarded && active.known == -1)
            throw CompileError(who + ": " + carried_sequence + " and the loop may stop early (" +
                               (cond0.known == -1 ? "its condition '" + np.input(1) + "' is only known at run time"
                                                  : std::string("the body's condition output is computed at run time")) +
                               "); keeping the list of the step where it stops would need a run-time choice between "
                               "sequences, which Kiln does not support (sequences are resolved at compile time)");
          if (active.known == 1) state[i] = next;  // a step that never runs leaves the list as it was
          continue;
        }
        if (next->dtype != state[i]->dtype || next->shape != state[i]->shape)
          throw CompileError(who + ": loop-carried value " + std::to_string(i) + " changes type from " +
                             shape_str(state[i]->shape) + " to " + shape_str(next->shape) +
                             "; Kiln needs one static shape");
        if (!guarded && active.known != 1) {
          Value* sel = g_.add_value(g_.unique_name(step + ".carried"), next->dtype, next->shape);
          if (active.known == 0) g_.add_node("Identity", g_.unique_name(step + ".frozen"), {state[i]}, {sel});
          else g_.add_node("KilnSelect", g_.unique_name(step + ".select"), {active.v, next, state[i]}, {sel});
          next = sel;
        }
        state[i] = next;
      }
      for (size_t k = 0; k < nscan; ++k) per_step[k].push_back(outs[1 + ncarried + k]);
      const Cond go_on = logic("And", cond_of(outs[0], step), below_trip_count(t + 1, m, trips, step), step);
      if (guarded && t == steps - 1) exact = logic("And", active, negate(go_on, step), step);
      active = logic("And", active, go_on, step);
    }
    if (guarded && exact.known == 0)
      throw CompileError(who + ": the loop can never run exactly the " + std::to_string(steps) +
                         " iterations its scan outputs declare");

    // out = src, through a KilnGuard when the run must check the iteration count.
    auto finish = [&](Value* src, Value* out) {
      if (guarded && exact.known != 1) {
        g_.add_node("KilnGuard", g_.unique_name(name + ".guard"), {exact.v, src}, {out});
      } else {
        g_.add_node("Identity", g_.unique_name(name + ".final"), {src}, {out});
      }
    };
    for (size_t i = 0; i < ncarried && int(i) < np.output_size(); ++i) {
      if (np.output(int(i)).empty()) continue;
      Value* out = loop_output(np.output(int(i)), state[i]->dtype, s_.lookup(np.input(int(2 + i)))->shape, who);
      if (state[i]->is_sequence != out->is_sequence)
        throw CompileError(who + ": output '" + np.output(int(i)) + "' and its loop-carried value disagree on being a sequence");
      if (state[i]->is_sequence) {
        g_.add_node("Identity", g_.unique_name(name + ".final"), {state[i]}, {out});  // resolved as a list
        continue;
      }
      finish(reshape(state[i], out->shape, name + ".state_out"), out);
    }
    for (size_t k = 0; k < nscan && int(ncarried + k) < np.output_size(); ++k) {
      const std::string& nm = np.output(int(ncarried + k));
      if (nm.empty()) continue;
      const Value* first = per_step[k].empty() ? nullptr : per_step[k][0];
      if (!first) throw CompileError(who + ": a loop with empty scan outputs is not supported");
      Shape stacked = first->shape;
      stacked.insert(stacked.begin(), steps);
      Value* out = scan_outs[k] ? scan_outs[k] : loop_output(nm, first->dtype, stacked, who);
      if (out->dtype != first->dtype || out->shape != stacked)
        throw CompileError(who + ": scan output '" + nm + "' is declared " + shape_str(out->shape) +
                           " but the unrolled loop computes " + shape_str(stacked));
      Shape piece = first->shape;
      piece.insert(piece.begin(), 1);
      std::vector<Value*> parts;
      for (Value* v : per_step[k]) parts.push_back(reshape(v, piece, name + ".piece"));
      Value* dst = out;
      if (guarded && exact.known != 1) dst = g_.add_value(g_.unique_name(name + ".stacked"), out->dtype, out->shape);
      Node* c = g_.add_node("Concat", g_.unique_name(name + ".stack"), parts, {dst});
      c->attrs["axis"] = int64_t(0);
      if (dst != out) finish(dst, out);
    }
  }

 private:
  const SubgraphScope& s_;
  Graph& g_;
};

}  // namespace

bool is_flattened_control_flow(const std::string& op_type) {
  return op_type == "If" || op_type == "Scan" || op_type == "Loop";
}

void flatten_control_flow(const onnx::NodeProto& np, const std::string& name, const SubgraphScope& scope) {
  SubgraphScope s = scope;
  if (!s.make_output_typed) {
    // The outermost scope: a value shape inference could not type gets the type the
    // flattening computed, under its ONNX name (which is how that scope finds values).
    s.make_output_typed = [&scope](const std::string& nm, DType dt, const Shape& shape) -> Value* {
      try {
        return scope.make_output(nm);
      } catch (const CompileError&) {
        if (scope.lookup(nm)) throw;
        return scope.graph->add_value(nm, dt, shape);
      }
    };
  }
  Flattener f(s);
  if (np.op_type() == "If") f.flatten_if(np, name);
  else if (np.op_type() == "Scan") f.flatten_scan(np, name, s.graph->opset);
  else f.flatten_loop(np, name);
}

size_t expand_deferred_ifs(Graph& graph, bool undecided_too) {
  size_t expanded = 0;
  for (auto it = graph.nodes.begin(); it != graph.nodes.end();) {
    Node* n = it->get();
    if (n->op_type != "If" || !n->domain.empty() || n->inputs.empty()) {
      ++it;
      continue;
    }
    const int known = known_bool(n->inputs[0]);
    if (known < 0 && !undecided_too) {
      ++it;
      continue;
    }
    const std::string who = n->describe();
    onnx::GraphProto then_g, else_g;
    if (!then_g.ParseFromString(n->attr_string("then_branch", "")) ||
        !else_g.ParseFromString(n->attr_string("else_branch", "")))
      throw CompileError(who + ": its branches do not parse");
    const std::vector<std::string> captured = std::get<std::vector<std::string>>(n->attrs.at("captured"));
    std::map<std::string, Value*> scope_values;
    for (size_t i = 0; i < captured.size() && i + 1 < n->inputs.size(); ++i) scope_values[captured[i]] = n->inputs[i + 1];
    Value* cond = n->inputs[0];
    const std::vector<Value*> outs = n->outputs;
    const std::string name = n->name;
    const std::filesystem::path base_dir = n->attr_string("base_dir", "");
    // Take the node out; its outputs keep their users and get new producers.
    for (Value* in : n->inputs) {
      if (!in) continue;
      auto u = std::find(in->users.begin(), in->users.end(), n);
      if (u != in->users.end()) in->users.erase(u);
    }
    for (Value* o : outs) o->producer = nullptr;
    const auto next = graph.nodes.erase(it);
    const size_t before = graph.nodes.size();
    SubgraphScope scope;
    scope.graph = &graph;
    scope.base_dir = base_dir;
    scope.lookup = [&scope_values](const std::string& nm) -> Value* {
      auto v = scope_values.find(nm);
      return v == scope_values.end() ? nullptr : v->second;
    };
    scope.make_output = [&who](const std::string& nm) -> Value* {
      throw CompileError(who + ": unexpected output '" + nm + "'");
    };
    Flattener(scope).expand_if(then_g, else_g, cond, outs, name, known);
    // The new nodes (appended) go where the If was; nested deferred Ifs among them
    // are looked at next.
    auto first_new = std::next(graph.nodes.begin(), std::ptrdiff_t(before));
    const bool any_new = first_new != graph.nodes.end();
    graph.nodes.splice(next, graph.nodes, first_new, graph.nodes.end());
    it = any_new ? first_new : next;
    ++expanded;
  }
  return expanded;
}

}  // namespace kiln
