#include "controlflow/control_flow.h"

#include <algorithm>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include "eval/evaluate.h"
#include "ir/loop_region.h"
#include "util/checked_math.h"
#include "util/error.h"
#include "util/quoted.h"

namespace kiln {

namespace {

bool is_control_flow(const Node& n) {
  return n.domain.empty() && (n.op_type == "If" || n.op_type == "Scan" || n.op_type == "Loop");
}

// The subgraph attribute `k` of `n`, or null (absent, or not a subgraph).
const Graph* subgraph(const Node& n, const std::string& k) {
  auto it = n.attrs.find(k);
  if (it == n.attrs.end()) return nullptr;
  const GraphPtr* g = std::get_if<GraphPtr>(&it->second);
  return g ? g->get() : nullptr;
}

// An output the model left out (an empty name): the importer and the subgraph
// converter give it a private "<node>_unused" name and no type.
bool is_omitted_output(const Node& n, const Value* v) {
  return v->users.empty() && !v->is_graph_output && !v->is_sequence && v->dtype == DType::Undefined &&
         v->name.rfind(n.name + "_unused", 0) == 0;
}

// The values of the enclosing scope a node's subgraphs read, by their names there.
std::map<std::string, Value*> captured_values(const Node& n, const std::function<Value*(Value*)>& map) {
  std::map<std::string, Value*> r;
  auto it = n.attrs.find("captured");
  if (it == n.attrs.end()) return r;
  const auto& names = std::get<std::vector<std::string>>(it->second);
  const size_t own = n.own_input_count();
  for (size_t j = 0; j < names.size() && own + j < n.inputs.size(); ++j) r[names[j]] = map(n.inputs[own + j]);
  return r;
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
bool body_never_stops(const Graph& body) {
  if (body.inputs.size() < 2 || body.outputs.empty()) return false;
  const Value* v = body.outputs[0];
  for (size_t guard = 0; guard <= body.nodes.size(); ++guard) {
    if (v == body.inputs[1]) return true;
    if (v->constant) return false;  // an initializer: let the general path decide
    const Node* p = v->producer;
    if (!p) return false;
    if (p->op_type == "Identity" && p->inputs.size() == 1 && p->inputs[0]) {
      v = p->inputs[0];
      continue;
    }
    if (p->op_type == "Constant") {
      ConstantPtr c = p->attr_tensor("value");
      if (!c || c->dtype() != DType::Bool || c->num_elements() < 1) return false;
      const uint8_t* d = c->data();
      for (int64_t i = 0; i < c->num_elements(); ++i)
        if (!d[i]) return false;
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

// A control-flow node as the flattener sees it: the node (of the graph, or of a body
// being instantiated), its own inputs and captured values in the enclosing graph,
// and how its outputs are made there (they may not exist yet: a nested node's
// outputs are created when the flattening needs them, with the types it computes).
struct NodeView {
  const Node* node = nullptr;
  std::string name;  // unique in the enclosing graph
  size_t own_inputs = 0;
  std::function<Value*(size_t)> input;  // own input i (null: omitted)
  std::map<std::string, Value*> captured;
  std::function<std::string(size_t)> output_name;
  std::function<bool(size_t)> omitted;
  std::function<Value*(size_t)> make_output;       // output i, of static type
  std::function<Value*(size_t)> make_open_output;  // output i, its shape maybe open
  std::function<Value*(size_t, DType, const Shape&)> make_output_typed;  // declared type, else this one
  // An If on run-time data (or a Loop whose trip count or condition is not known
  // yet) inside a body: recreate it as a node of the enclosing graph with these
  // outputs (null for a node of the graph itself).
  std::function<void(const std::vector<Value*>&)> keep_node;
};

// Whether a Loop can be unrolled as well now as after more folding: its trip count
// (if any) and its condition (if any) are known at compile time, or it carries or
// returns a sequence (the sequence pass needs it unrolled). Otherwise it waits,
// inside the settle fixed point, until folding has settled them (a trip count
// Shape(x)[0] once --input-shape fixes x), and is unrolled as it stands (run-time
// condition, or a trip count bounded by the scan outputs' declared length) only
// once the graph has settled.
bool loop_decidable(const Node& n, const std::function<Value*(size_t)>& input) {
  for (const Value* v : n.outputs)
    if (v->is_sequence) return true;
  const size_t own = n.own_input_count();
  for (size_t i = 2; i < own; ++i)
    if (input(i) && input(i)->is_sequence) return true;
  std::deque<Value> tmp;
  const Value* m = own > 0 ? input(0) : nullptr;
  if (m && !compile_time_value(m, 0, &tmp)) return false;
  const Value* cond = own > 1 ? input(1) : nullptr;
  if (cond && known_bool(cond) < 0) {
    ConstantPtr c = compile_time_value(cond, 0, &tmp);
    if (!c || c->dtype() != DType::Bool) return false;
  }
  return true;
}

class Flattener {
 public:
  Flattener(Graph& g, const ControlFlowOptions& o) : g_(g), opt_(o) {}

  void flatten(const NodeView& nv, bool undecided_too) {
    const std::string& op = nv.node->op_type;
    if (op == "If") flatten_if(nv, undecided_too);
    else if (op == "Scan") flatten_scan(nv);
    else if (!undecided_too && nv.keep_node && !loop_decidable(*nv.node, nv.input)) keep_loop(nv);
    else flatten_loop(nv);
  }

  // A Loop in a body whose trip count or condition folding may still settle: it
  // stays a Loop node of the enclosing graph (its outputs typed as far as known).
  void keep_loop(const NodeView& nv) {
    std::vector<Value*> outs;
    for (size_t i = 0; i < nv.node->outputs.size(); ++i)
      outs.push_back(nv.omitted(i) ? g_.add_value(g_.unique_name(nv.name + "_unused"), DType::Undefined, {})
                                   : nv.make_open_output(i));
    nv.keep_node(outs);
  }

  // Instantiates `body` once, its inputs bound to `bound` and the values it reads
  // from enclosing scopes to `captured`; returns its outputs. `open_outputs`: an
  // output whose shape is not known yet is inferred later (a taken If branch); else
  // every output needs a static shape now.
  std::vector<Value*> import_body(const Graph& body, const std::vector<Value*>& bound,
                                  const std::map<std::string, Value*>& captured, const std::string& prefix,
                                  const std::string& who, bool open_outputs = false) {
    if (body.inputs.size() != bound.size())
      throw CompileError(who + ": subgraph " + in_quotes(body.name) + " takes " + std::to_string(body.inputs.size()) +
                         " inputs; " + std::to_string(bound.size()) + " are bound");
    std::map<const Value*, Value*> local;
    for (size_t i = 0; i < body.inputs.size(); ++i) local[body.inputs[i]] = bound[i];
    for (const Value* c : body.captures) {
      auto it = captured.find(c->name);
      if (it == captured.end() || !it->second)
        throw CompileError(who + ": subgraph value " + in_quotes(c->name) + " is not defined in the subgraph or its scope");
      local[c] = it->second;
    }
    for (const auto& v : body.values()) {  // initializers
      if (!v->constant || v->producer || v->is_graph_input) continue;
      Value* c = g_.add_value(g_.unique_name(prefix + v->name), v->constant->dtype(), v->constant->shape());
      c->constant = v->constant;
      local[v.get()] = c;
    }
    auto mapped = [&](const Value* v, const std::string& nwho) -> Value* {
      if (!v) return nullptr;
      auto it = local.find(v);
      if (it == local.end())
        throw CompileError(nwho + ": input " + in_quotes(v->name) + " is not defined in the subgraph or its scope");
      return it->second;
    };
    for (const auto& bn : body.nodes) {
      const Node& b = *bn;
      const std::string name = g_.unique_name(prefix + b.name);
      const std::string nwho = b.op_type + " " + in_quotes(name);
      if (!b.domain.empty() && b.domain != "ai.onnx")
        throw CompileError(nwho + ": operator domain " + in_quotes(b.domain) + " is not supported");
      if (b.op_type == "Constant") {
        ConstantPtr c = b.attr_tensor("value");
        const Value* out = b.outputs.at(0);
        Value* v = g_.add_value(g_.unique_name(prefix + out->name), c->dtype(), c->shape());
        v->constant = c;
        local[out] = v;
        continue;
      }
      if (is_control_flow(b)) {
        // Nested control flow: lowered now, its values and outputs in this instance.
        NodeView inner;
        inner.node = &b;
        inner.name = name;
        inner.own_inputs = b.own_input_count();
        inner.input = [&, nwho](size_t i) { return i < b.inputs.size() ? mapped(b.inputs[i], nwho) : nullptr; };
        inner.captured = captured_values(b, [&](Value* v) { return mapped(v, nwho); });
        inner.output_name = [&b](size_t i) { return b.outputs[i]->name; };
        inner.omitted = [&b](size_t i) { return is_omitted_output(b, b.outputs[i]); };
        inner.make_output = [&, nwho](size_t i) { return make_local(b.outputs[i], prefix, nwho, &local); };
        inner.make_open_output = inner.make_output;  // make_local leaves a shape inference could not tell open
        inner.make_output_typed = [&, nwho](size_t i, DType dt, const Shape& shape) {
          const Value* bv = b.outputs[i];
          if (bv->is_sequence || (bv->dtype != DType::Undefined && bv->shape_known))
            return make_local(bv, prefix, nwho, &local);
          Value* v = g_.add_value(g_.unique_name(prefix + bv->name), dt, shape);
          local[bv] = v;
          return v;
        };
        inner.keep_node = [&, name](const std::vector<Value*>& outs) {
          std::vector<Value*> ins;
          for (size_t j = 0; j < b.own_input_count(); ++j) ins.push_back(inner.input(j));
          for (size_t j = b.own_input_count(); j < b.inputs.size(); ++j) ins.push_back(mapped(b.inputs[j], name));
          Node* n = g_.add_node(b.op_type, name, ins, outs);
          n->attrs = b.attrs;
          n->opset = b.opset;
        };
        flatten(inner, /*undecided_too=*/false);
        continue;
      }
      std::vector<Value*> ins;
      for (const Value* in : b.inputs) ins.push_back(mapped(in, nwho));
      std::vector<Value*> outs;
      for (const Value* out : b.outputs) {
        if (is_omitted_output(b, out)) outs.push_back(g_.add_value(g_.unique_name(name + "_unused"), DType::Undefined, {}));
        else outs.push_back(make_local(out, prefix, nwho, &local));
      }
      Node* n = g_.add_node(b.op_type, name, ins, outs);
      n->attrs = b.attrs;
      if (std::any_of(outs.begin(), outs.end(), [](const Value* v) { return !v->shape_known; })) infer_with_constants(*n);
    }
    std::vector<Value*> outs;
    for (const Value* o : body.outputs) {
      auto it = local.find(o);
      if (it == local.end()) throw CompileError(who + ": subgraph output " + in_quotes(o->name) + " is not produced");
      Value* v = it->second;
      if (!v->shape_known && !v->is_sequence && !open_outputs)
        throw CompileError(who + ": subgraph output " + in_quotes(o->name) + " has no static shape (Kiln needs static shapes)");
      outs.push_back(v);
    }
    return outs;
  }

  // The instance of body value `bv`, typed as the body says: a sequence, a tensor
  // whose shape ONNX's inference could not tell from the body alone (it depends on
  // a value the body computes, or on an untyped body input: inferred once its node is
  // added, see infer_with_constants, else after folding), or a static tensor.
  Value* make_local(const Value* bv, const std::string& prefix, const std::string& who,
                    std::map<const Value*, Value*>* local) {
    if (bv->is_sequence) {
      Value* v = g_.add_value(g_.unique_name(prefix + bv->name), bv->dtype, {});
      v->is_sequence = true;
      v->shape_known = false;
      (*local)[bv] = v;
      return v;
    }
    if (bv->dtype == DType::Undefined)
      throw CompileError(who + ": subgraph value " + in_quotes(bv->name) + " is not a tensor of known shape");
    Value* v = g_.add_value(g_.unique_name(prefix + bv->name), bv->dtype, bv->shape_known ? bv->shape : Shape{});
    v->shape_known = bv->shape_known;
    (*local)[bv] = v;
    return v;
  }

  // Infers the output types of `n` with the pipeline's per-node inference, giving it
  // the data of every input known at compile time (an unrolled Loop step's
  // iteration_num and what is computed from it, such as Slice bounds). The graph is
  // not changed: folding computes those values later.
  void infer_with_constants(Node& n) {
    if (!opt_.infer_shapes) return;
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
    if (!opt_.infer_shapes(copy)) return;
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


  // An If: a condition known now takes its branch; one on run-time data either waits
  // (keep_if; a node of the graph is simply not lowered yet) or, with
  // `undecided_too`, runs both branches.
  void flatten_if(const NodeView& nv, bool undecided_too) {
    const Node& np = *nv.node;
    const std::string& name = nv.name;
    const std::string who = "If " + in_quotes(name);
    const Graph* then_g = subgraph(np, "then_branch");
    const Graph* else_g = subgraph(np, "else_branch");
    if (!then_g || !else_g || nv.own_inputs != 1) throw CompileError(who + ": malformed If");
    Value* cond = nv.input(0);
    if (!cond || cond->dtype != DType::Bool || (cond->shape_known && cond->num_elements() != 1))
      throw CompileError(who + ": the condition must be a single bool");
    if (then_g->outputs.size() != np.outputs.size() || else_g->outputs.size() != np.outputs.size())
      throw CompileError(who + ": branches and node disagree on the number of outputs");
    std::vector<Value*> outs;
    bool sequences = false;
    for (size_t i = 0; i < np.outputs.size(); ++i) {
      outs.push_back(nv.make_open_output(i));
      sequences |= outs.back()->is_sequence;
    }
    const int known = known_bool(cond);
    if (known >= 0)
      return take_branch(known ? *then_g : *else_g, nv.captured, outs, name + (known ? ".then." : ".else."), who);
    // Sequence outputs keep the early selection (one KilnSelect of the two lists,
    // resolved element-wise by sequence/resolve_sequences.h).
    if (sequences || undecided_too) return select_branches(*then_g, *else_g, nv.captured, cond, outs, name, who);
    // The condition is not known yet: the If stays one node until folding has
    // decided it. The values its branches read are its inputs, so passes see the
    // uses and keep them up to date.
    if (!nv.keep_node) throw std::logic_error(who + ": an undecided If was taken out of its graph");
    nv.keep_node(outs);
  }

  // The If's outputs `outs` are the branch's results (through Identity, a view):
  // only its shapes count; an output of unknown shape is inferred later.
  void take_branch(const Graph& branch, const std::map<std::string, Value*>& captured, const std::vector<Value*>& outs,
                   const std::string& prefix, const std::string& who) {
    std::vector<Value*> r = import_body(branch, {}, captured, prefix, who, /*open_outputs=*/true);
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
  void select_branches(const Graph& then_g, const Graph& else_g, const std::map<std::string, Value*>& captured,
                       Value* cond, const std::vector<Value*>& outs, const std::string& name, const std::string& who) {
    std::vector<Value*> t = import_body(then_g, {}, captured, name + ".then.", who);
    std::vector<Value*> e = import_body(else_g, {}, captured, name + ".else.", who);
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

  void flatten_scan(const NodeView& nv) {
    const Node& np = *nv.node;
    const std::string& name = nv.name;
    const std::string who = "Scan " + in_quotes(name);
    const int64_t opset = np.opset;
    const Graph* body = subgraph(np, "body");
    const int64_t m = np.attr_int("num_scan_inputs", -1);
    if (!body || m < 1) throw CompileError(who + ": malformed Scan");
    // Opset 8 has a leading optional sequence_lens input and a batch dim on every
    // input and output (scan axis 1). Kiln takes batch 1 without sequence_lens and
    // reshapes the batch dim away around the body.
    const bool v8 = opset < 9;
    std::vector<Value*> ins;
    for (size_t i = v8 ? 1 : 0; i < nv.own_inputs; ++i) {
      Value* v = nv.input(i);
      if (!v) throw CompileError(who + ": input " + std::to_string(i) + " is omitted");
      ins.push_back(v);
    }
    if (v8 && nv.own_inputs > 0 && nv.input(0))
      throw CompileError(who + ": sequence_lens is not supported (opset 8 Scan)");
    const size_t nstate = ins.size() - size_t(m);
    if (ins.size() < size_t(m)) throw CompileError(who + ": fewer inputs than num_scan_inputs");
    auto attr_at = [&](const char* k, size_t i) -> int64_t {
      const std::vector<int64_t> v = np.attr_ints(k);
      return i < v.size() ? v[i] : 0;
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
    for (const Value* vi : body->inputs) {
      if (vi->is_sequence || vi->dtype == DType::Undefined || !vi->shape_known)
        throw CompileError(who + ": subgraph value " + in_quotes(vi->name) + " is not a tensor of known shape");
      body_in_shapes.push_back(vi->shape);
    }
    if (body_in_shapes.size() != ins.size()) throw CompileError(who + ": body inputs do not match the node's");
    for (size_t i = 0; i < nstate; ++i) state[i] = reshape(state[i], body_in_shapes[i], name + ".state_in");
    if (body->outputs.size() < nstate) throw CompileError(who + ": the body has fewer outputs than state values");
    const size_t nscan_out = body->outputs.size() - nstate;
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
      std::vector<Value*> outs = import_body(*body, bound, nv.captured, name + ".step" + std::to_string(t) + ".", who);
      for (size_t i = 0; i < nstate; ++i) state[i] = outs[i];
      for (size_t k = 0; k < nscan_out; ++k) per_step[k].push_back(outs[nstate + k]);
    }
    for (size_t i = 0; i < nstate; ++i) {
      Value* out = nv.make_output(i);
      Value* src = reshape(state[i], out->shape, name + ".state_out");
      g_.add_node("Identity", g_.unique_name(name + ".final"), {src}, {out});
    }
    for (size_t k = 0; k < nscan_out; ++k) {
      Value* out = nv.make_output(nstate + k);
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
    // A condition computed from constants (a body's `i + 1 < n` once n has folded).
    std::deque<Value> tmp;
    if (ConstantPtr c = compile_time_value(v, 0, &tmp); c && c->dtype() == DType::Bool && c->num_elements() == 1)
      return Cond::of(c->data()[0] != 0);
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
  Value* loop_output(const NodeView& nv, size_t i, DType dt, const Shape& shape, const std::string& who) {
    const std::string nm = nv.output_name(i);
    Value* out = nv.make_output_typed(i, dt, shape);
    if (out->dtype != dt || out->shape != shape)
      throw CompileError(who + ": output " + in_quotes(nm) + " is declared " + std::string(dtype_name(out->dtype)) + " " +
                         shape_str(out->shape) + " but the unrolled loop computes " + dtype_name(dt) + " " +
                         shape_str(shape));
    return out;
  }

  // ---- Loop as a region (ir/loop_region.h) -------------------------------

  void note(const std::string& text) {
    if (std::find(g_.lowering_notes.begin(), g_.lowering_notes.end(), text) == g_.lowering_notes.end())
      g_.lowering_notes.push_back(text);
  }

  // The body-side types of a Loop's inputs: iteration_num, cond_in, then the
  // loop-carried values (declared by the body, else the initial values').
  static std::vector<Shape> loop_body_shapes(const Graph& body, const std::vector<Value*>& state) {
    std::vector<Shape> shapes;
    for (size_t i = 0; i < body.inputs.size(); ++i) {
      const Value* vi = body.inputs[i];
      const bool declared = !vi->is_sequence && vi->dtype != DType::Undefined && vi->shape_known;
      shapes.push_back(declared ? vi->shape : i == 0 || i == 1 ? Shape{} : state[i - 2]->shape);
    }
    return shapes;
  }

  // Why a Loop is unrolled instead of becoming a region ("": a region). The body is
  // instantiated once on the side, in a scratch graph, with iteration_num, cond_in
  // and the loop-carried values unknown (run-time values): every value computed from
  // them must then have a static shape, keep the loop-carried types, and have a
  // run-time form (ControlFlowOptions::runtime_refusal). A body whose shapes or
  // kernels need the iteration number as a compile-time constant is unrolled, where
  // each step folds with its own constant.
  std::string region_refusal(const NodeView& nv, const Graph& body, const std::vector<Value*>& state,
                             std::optional<int64_t> trips, bool carries_sequence) {
    if (opt_.unroll_loops) return "unrolling requested";
    if (carries_sequence) return "it carries a sequence, which Kiln builds at compile time";
    for (size_t i = 0; i < nv.node->outputs.size(); ++i)
      if (!nv.omitted(i) && nv.node->outputs[i]->is_sequence) return "it returns a sequence";
    if (trips && *trips <= 1) return "it runs at most once";
    for (const auto& bn : body.nodes)
      if (bn->op_type == "SequenceMap" || bn->op_type.rfind("Sequence", 0) == 0 ||
          bn->op_type == "SplitToSequence" || bn->op_type == "ConcatFromSequence")
        return "its body holds " + bn->describe() + ", which Kiln resolves at compile time";
    for (const auto& v : body.values())
      if (v->is_sequence) return "its body uses a sequence";
    if (trips && *trips > kMaxLoopIterations) return "";  // region_loop refuses it, naming the limit
    const std::vector<Shape> shapes = loop_body_shapes(body, state);
    Graph trial;
    trial.opset = g_.opset;  // the nodes' opset (Graph::add_node), which shape inference needs
    Flattener t(trial, opt_);
    std::vector<Value*> bound;
    bound.push_back(trial.add_value("iteration_num", DType::Int64, shapes[0]));
    bound.push_back(trial.add_value("cond_in", DType::Bool, shapes[1]));
    for (size_t i = 0; i < state.size(); ++i)
      bound.push_back(trial.add_value("state" + std::to_string(i), state[i]->dtype, shapes[2 + i]));
    std::map<std::string, Value*> captured;
    for (const auto& [nm, v] : nv.captured) {
      if (!v) continue;
      Value* c = trial.add_value(trial.unique_name("captured"), v->dtype, v->shape);
      c->shape_known = v->shape_known;
      c->is_sequence = v->is_sequence;
      c->constant = v->constant;
      captured[nm] = c;
    }
    std::vector<Value*> outs;
    try {
      outs = t.import_body(body, bound, captured, "", "Loop " + in_quotes(nv.name));
    } catch (const CompileError& e) {
      return std::string("the body cannot be instantiated once for all iterations: ") + e.what();
    }
    if (outs.size() < 1 + state.size()) return "the body returns too few values";
    for (size_t i = 0; i < state.size(); ++i)
      if (outs[1 + i]->dtype != state[i]->dtype || outs[1 + i]->shape != shapes[2 + i] || !outs[1 + i]->shape_known)
        return "loop-carried value " + std::to_string(i) + " changes type or shape across iterations";
    std::set<const Value*> dependent(bound.begin(), bound.end());
    for (const auto& n : trial.nodes) {
      if (std::none_of(n->inputs.begin(), n->inputs.end(), [&](const Value* v) { return v && dependent.count(v); }))
        continue;
      for (const Value* o : n->outputs) {
        if (o->dtype == DType::Undefined && o->users.empty()) continue;  // an omitted output
        dependent.insert(o);
        if (!o->shape_known || o->is_sequence)
          return "the shape of " + in_quotes(o->name) + " (" + n->describe() +
                 ") depends on the iteration number, the condition or a loop-carried value";
      }
      if (opt_.runtime_refusal && !is_control_flow(*n))  // nested control flow: lowered in place later
        if (std::string why = opt_.runtime_refusal(*n); !why.empty())
          return n->describe() + " has no run-time form for values computed in the loop (" + why + ")";
    }
    return "";
  }

  // The number of iterations a Loop's scan outputs declare when the run decides how
  // many run (a run-time M or stop): each present scan output is made with its
  // declared shape (into scan_outs), and they must agree on a static first
  // dimension. -1 when no scan output is present. `why` says why the length is
  // not known otherwise.
  int64_t declared_scan_length(const NodeView& nv, size_t ncarried, const std::string& why,
                               std::vector<Value*>& scan_outs) {
    const std::string who = "Loop " + in_quotes(nv.name);
    int64_t len = -1;
    for (size_t k = 0; k < scan_outs.size(); ++k) {
      const size_t o = ncarried + k;
      if (o >= nv.node->outputs.size() || nv.omitted(o)) continue;
      try {
        scan_outs[k] = nv.make_output(o);
      } catch (const CompileError&) {
        throw CompileError(who + ": scan output " + in_quotes(nv.output_name(o)) + " has a data-dependent length (" + why +
                           "); Kiln needs static shapes: give the output a static shape in the model, or make M a "
                           "constant and the loop run all M iterations");
      }
      const Value* v = scan_outs[k];
      if (v->shape.empty() || (len >= 0 && v->shape[0] != len))
        throw CompileError(who + ": scan outputs do not declare one static number of iterations");
      len = v->shape[0];
    }
    return len;
  }

  // The Loop as a region: KilnLoopBegin, the body once, KilnLoopEnd (ir/loop_region.h).
  // The scan outputs hold one row per iteration: their number of rows is M when M
  // is a compile-time constant and the loop never stops early, else the static
  // length the model declares for them, which the run then checks (as the unrolled
  // form's KilnGuard does).
  void region_loop(const NodeView& nv, const Graph& body, Value* m, Value* cond, std::vector<Value*> state,
                   std::optional<int64_t> trips, bool stops_early) {
    const Node& np = *nv.node;
    const std::string& name = nv.name;
    const std::string who = "Loop " + in_quotes(name);
    const size_t ncarried = state.size();
    const size_t nscan = body.outputs.size() - 1 - ncarried;
    if (trips && *trips > kMaxLoopIterations)
      throw CompileError(who + ": the trip count " + std::to_string(*trips) + " exceeds Kiln's limit of " +
                         std::to_string(kMaxLoopIterations) + " iterations per run");
    int64_t len = -1;
    bool check_length = false;
    std::vector<Value*> scan_outs(nscan, nullptr);
    if (nscan > 0 && !stops_early && trips) {
      len = *trips;
    } else if (nscan > 0) {
      const std::string why = !trips ? (m ? "the trip count M (" + in_quotes(m->name) + ") is only known at run time"
                                          : "there is no trip count M")
                                     : "the loop may stop early (its condition is computed at run time)";
      len = declared_scan_length(nv, ncarried, why, scan_outs);
      if (len >= 0) {
        if (trips && len > *trips)
          throw CompileError(who + ": the scan outputs are declared with " + std::to_string(len) +
                             " iterations but the trip count is " + std::to_string(*trips));
        check_length = true;
      }
    }
    const std::vector<Shape> shapes = loop_body_shapes(body, state);
    for (size_t i = 0; i < ncarried; ++i) state[i] = reshape(state[i], shapes[2 + i], name + ".state_in");
    Value* iter = g_.add_value(g_.unique_name(name + ".iteration"), DType::Int64, shapes[0]);
    Value* cond_in = g_.add_value(g_.unique_name(name + ".cond_in"), DType::Bool, shapes[1]);
    std::vector<Value*> carried;
    for (size_t i = 0; i < ncarried; ++i)
      carried.push_back(g_.add_value(g_.unique_name(name + ".state"), state[i]->dtype, shapes[2 + i]));
    std::vector<Value*> begin_in = {m, cond};
    begin_in.insert(begin_in.end(), state.begin(), state.end());
    std::vector<Value*> bound = {iter, cond_in};
    bound.insert(bound.end(), carried.begin(), carried.end());
    g_.add_node(kLoopBeginOp, g_.unique_name(name + ".begin"), begin_in, bound);
    const size_t first_body_node = g_.nodes.size();
    std::vector<Value*> outs = import_body(body, bound, nv.captured, name + ".body.", who);
    const size_t body_nodes = g_.nodes.size() - first_body_node;
    if (outs[0]->dtype != DType::Bool || outs[0]->num_elements() != 1)
      throw CompileError(who + ": the body's condition output must be a single bool");
    for (size_t i = 0; i < ncarried; ++i)
      if (outs[1 + i]->dtype != carried[i]->dtype || outs[1 + i]->shape != carried[i]->shape)
        throw CompileError(who + ": loop-carried value " + std::to_string(i) + " changes type from " +
                           shape_str(carried[i]->shape) + " to " + shape_str(outs[1 + i]->shape) +
                           "; Kiln needs one static shape");
    std::vector<Value*> end_in = bound;
    end_in.insert(end_in.end(), outs.begin(), outs.end());
    std::vector<Value*> end_out;
    std::vector<std::pair<Value*, Value*>> reshaped;  // End's final value -> the node's output
    for (size_t i = 0; i < ncarried; ++i) {
      if (i >= np.outputs.size() || nv.omitted(i)) {
        end_out.push_back(g_.add_value(g_.unique_name(name + "_unused"), DType::Undefined, {}));
        continue;
      }
      Value* out = loop_output(nv, i, carried[i]->dtype, nv.input(2 + i)->shape, who);
      if (out->shape == carried[i]->shape) {
        end_out.push_back(out);
        continue;
      }
      Value* fin = g_.add_value(g_.unique_name(name + ".final"), carried[i]->dtype, carried[i]->shape);
      end_out.push_back(fin);
      reshaped.push_back({fin, out});
    }
    for (size_t k = 0; k < nscan; ++k) {
      const size_t o = ncarried + k;
      const Value* row = outs[1 + ncarried + k];
      if (o >= np.outputs.size() || nv.omitted(o) || len < 0) {
        if (o < np.outputs.size() && !nv.omitted(o))
          throw CompileError(who + ": scan output " + in_quotes(nv.output_name(o)) + " has no static number of rows");
        end_out.push_back(g_.add_value(g_.unique_name(name + "_unused"), DType::Undefined, {}));
        continue;
      }
      Shape stacked = row->shape;
      stacked.insert(stacked.begin(), len);
      Value* out = scan_outs[k] ? scan_outs[k] : loop_output(nv, o, row->dtype, stacked, who);
      if (out->dtype != row->dtype || out->shape != stacked)
        throw CompileError(who + ": scan output " + in_quotes(nv.output_name(o)) + " is declared " + shape_str(out->shape) +
                           " but the loop computes " + shape_str(stacked));
      end_out.push_back(out);
    }
    Node* end = g_.add_node(kLoopEndOp, g_.unique_name(name + ".end"), end_in, end_out);
    end->attrs["carried"] = int64_t(ncarried);
    end->attrs["scan_length"] = len;
    end->attrs["check_length"] = int64_t(check_length ? 1 : 0);
    for (const auto& [fin, out] : reshaped)
      g_.add_node("Reshape", g_.unique_name(name + ".final"), {fin, constant_shape(out->shape)}, {out});
    note(who + ": a C loop, its body (" + std::to_string(body_nodes) + " nodes) planned once" +
         (trips ? ", " + std::to_string(*trips) + " iterations at most" : ", trip count decided at run time") +
         (stops_early ? ", may stop early" : ""));
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
  void flatten_loop(const NodeView& nv) {
    const Node& np = *nv.node;
    const std::string& name = nv.name;
    const std::string who = "Loop " + in_quotes(name);
    const Graph* body = subgraph(np, "body");
    if (!body || nv.own_inputs < 2) throw CompileError(who + ": malformed Loop");
    const size_t ncarried = nv.own_inputs - 2;
    if (body->inputs.size() != 2 + ncarried || body->outputs.size() < 1 + ncarried)
      throw CompileError(who + ": the body's inputs and outputs do not match the node's loop-carried values");
    const size_t nscan = body->outputs.size() - 1 - ncarried;
    if (np.outputs.size() > ncarried + nscan) throw CompileError(who + ": more outputs than the body computes");

    auto input = [&](int i, const char*) -> Value* { return nv.input(size_t(i)); };
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
        carried_sequence = "loop-carried value " + std::to_string(i) + " (" + in_quotes(state[i]->name) + ") is a sequence";

    std::optional<int64_t> trips;
    if (m) {
      std::deque<Value> tmp;
      if (ConstantPtr c = compile_time_value(m, 0, &tmp)) trips = std::max<int64_t>(0, c->as_int64(0));
    }
    const Cond cond0 = cond ? cond_of(cond, name) : Cond::of(true);
    const bool stops_early = cond0.known != 1 || !body_never_stops(*body);

    // A C loop whose body is planned once, unless the body needs to be unrolled.
    const std::string unroll_why = region_refusal(nv, *body, state, trips, !carried_sequence.empty());
    if (unroll_why.empty()) return region_loop(nv, *body, m, cond, state, trips, stops_early);

    // How many steps, and whether the run must check that exactly that many run.
    int64_t steps = 0;
    bool guarded = false;
    std::vector<Value*> scan_outs(nscan, nullptr);
    if (nscan > 0 && (stops_early || !trips)) {
      const std::string why = !trips ? (m ? "the trip count M (" + in_quotes(m->name) + ") is not a compile-time constant"
                                          : "there is no trip count M")
                                     : "the loop may stop early (its condition is computed at run time)";
      int64_t len = declared_scan_length(nv, ncarried, why, scan_outs);
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
                           (m ? "the trip count M (" + in_quotes(m->name) + ") is not a compile-time constant"
                              : std::string("there is no trip count M")) +
                           "; Kiln builds sequences at compile time, so a loop that edits one must have a static "
                           "trip count (an initializer, a Constant, an expression of them, or the SequenceLength of "
                           "a sequence of known length)");
      if (!trips)
        throw CompileError(who + ": " +
                           (m ? "the trip count M (" + in_quotes(m->name) + ") is not a compile-time constant"
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
    const int body_nodes = int(std::min<size_t>(body->nodes.size(), size_t(kMaxUnrolledLoopNodes)));
    if (steps > kMaxUnrolledLoopNodes / std::max(1, body_nodes))
      throw CompileError(who + ": unrolling " + std::to_string(steps) + " iterations of a " +
                         std::to_string(body_nodes) + "-node body exceeds Kiln's limit of " +
                         std::to_string(kMaxUnrolledLoopNodes) + " nodes");

    // Body-side types: iteration_num, cond_in, then the loop-carried values.
    std::vector<Shape> body_shapes;
    for (size_t i = 0; i < body->inputs.size(); ++i) {
      const Value* vi = body->inputs[i];
      const bool declared = !vi->is_sequence && vi->dtype != DType::Undefined && vi->shape_known;
      body_shapes.push_back(declared ? vi->shape : i == 0 || i == 1 ? Shape{} : state[i - 2]->shape);
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
      std::vector<Value*> outs = import_body(*body, bound, nv.captured, step + ".", who);
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
                               (cond0.known == -1 ? "its condition " + in_quotes(cond->name) + " is only known at run time"
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
    for (size_t i = 0; i < ncarried && i < np.outputs.size(); ++i) {
      if (nv.omitted(i)) continue;
      Value* out = loop_output(nv, i, state[i]->dtype, nv.input(2 + i)->shape, who);
      if (state[i]->is_sequence != out->is_sequence)
        throw CompileError(who + ": output " + in_quotes(nv.output_name(i)) + " and its loop-carried value disagree on being a sequence");
      if (state[i]->is_sequence) {
        g_.add_node("Identity", g_.unique_name(name + ".final"), {state[i]}, {out});  // resolved as a list
        continue;
      }
      finish(reshape(state[i], out->shape, name + ".state_out"), out);
    }
    for (size_t k = 0; k < nscan && ncarried + k < np.outputs.size(); ++k) {
      if (nv.omitted(ncarried + k)) continue;
      const std::string nm = nv.output_name(ncarried + k);
      const Value* first = per_step[k].empty() ? nullptr : per_step[k][0];
      if (!first) throw CompileError(who + ": a loop with empty scan outputs is not supported");
      Shape stacked = first->shape;
      stacked.insert(stacked.begin(), steps);
      Value* out = scan_outs[k] ? scan_outs[k] : loop_output(nv, ncarried + k, first->dtype, stacked, who);
      if (out->dtype != first->dtype || out->shape != stacked)
        throw CompileError(who + ": scan output " + in_quotes(nm) + " is declared " + shape_str(out->shape) +
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
    note(who + ": unrolled, " + std::to_string(steps) + " step(s) (" + unroll_why + ")");
  }

 private:
  Graph& g_;
  const ControlFlowOptions& opt_;
};

// KilnSelect(cond, a, b) whose condition folding made constant (a Loop's "still
// active" flag once its trip count and stop condition folded): an Identity of the
// chosen value. Returns how many it replaced.
size_t decide_selects(Graph& graph) {
  size_t decided = 0;
  for (auto& n : graph.nodes) {
    if (n->op_type != "KilnSelect" || !n->domain.empty() || n->inputs.size() != 3 || !n->inputs[0]) continue;
    if (n->outputs.size() != 1 || n->outputs[0]->is_sequence) continue;  // sequences: the sequence pass
    const int k = known_bool(n->inputs[0]);
    if (k < 0) continue;
    Value* chosen = n->inputs[k == 1 ? 1 : 2];
    n->op_type = "Identity";
    for (Value* in : n->inputs) {
      if (!in) continue;
      auto u = std::find(in->users.begin(), in->users.end(), n.get());
      if (u != in->users.end()) in->users.erase(u);
    }
    n->inputs = {chosen};
    chosen->users.push_back(n.get());
    ++decided;
  }
  return decided;
}

// Whether lowering `n` (an If of the graph) changes anything now.
bool if_decidable(const Node& n, bool undecided_too) {
  if (undecided_too || n.inputs.empty() || !n.inputs[0] || known_bool(n.inputs[0]) >= 0) return true;
  return std::any_of(n.outputs.begin(), n.outputs.end(), [](const Value* v) { return v->is_sequence; });
}

}  // namespace

size_t lower_control_flow(Graph& graph, bool undecided_too, const ControlFlowOptions& options) {
  size_t lowered = 0;
  bool omitted_left = false;
  for (auto it = graph.nodes.begin(); it != graph.nodes.end();) {
    Node* n = it->get();
    const auto own_input = [n](size_t i) { return i < n->own_input_count() ? n->inputs[i] : nullptr; };
    if (!is_control_flow(*n) || (n->op_type == "If" && !if_decidable(*n, undecided_too)) ||
        (n->op_type == "Loop" && !undecided_too && !loop_decidable(*n, own_input))) {
      ++it;
      continue;
    }
    const std::string who = n->describe();
    NodeView nv;
    nv.node = n;
    nv.name = n->name;
    nv.own_inputs = n->own_input_count();
    nv.input = [n, own = nv.own_inputs](size_t i) { return i < own ? n->inputs[i] : nullptr; };
    nv.captured = captured_values(*n, [](Value* v) { return v; });
    nv.output_name = [n](size_t i) { return n->outputs[i]->name; };
    nv.omitted = [n](size_t i) { return is_omitted_output(*n, n->outputs[i]); };
    nv.make_output = [n, who](size_t i) {
      Value* v = n->outputs[i];
      if (!v->is_sequence && (!v->shape_known || v->dtype == DType::Undefined))
        throw CompileError(who + ": value " + in_quotes(v->name) + " has no static shape (Kiln needs static shapes; pass " +
                           "--input-shape NAME=D0,D1,... for dynamic inputs)");
      return v;
    };
    nv.make_open_output = [n](size_t i) { return n->outputs[i]; };
    // A type the node declares statically is the one the flattening must produce;
    // an open one (a scan output's length) takes the computed type.
    nv.make_output_typed = [n](size_t i, DType dt, const Shape& shape) {
      Value* v = n->outputs[i];
      if (v->is_sequence || (v->shape_known && v->dtype != DType::Undefined)) return v;
      v->dtype = dt;
      v->shape = shape;
      v->shape_known = true;
      return v;
    };
    for (size_t i = 0; i < n->outputs.size(); ++i) omitted_left |= is_omitted_output(*n, n->outputs[i]);
    // Take the node out (kept alive while its subgraphs are instantiated); its
    // outputs keep their users and get new producers.
    std::unique_ptr<Node> owned = std::move(*it);
    for (Value* in : n->inputs) {
      if (!in) continue;
      auto u = std::find(in->users.begin(), in->users.end(), n);
      if (u != in->users.end()) in->users.erase(u);
    }
    for (Value* o : n->outputs) o->producer = nullptr;
    const auto next = graph.nodes.erase(it);
    const size_t before = graph.nodes.size();
    Flattener(graph, options).flatten(nv, undecided_too);
    // The new nodes (appended) go where the node was; nested If nodes among them
    // are looked at next.
    auto first_new = std::next(graph.nodes.begin(), std::ptrdiff_t(before));
    const bool any_new = first_new != graph.nodes.end();
    graph.nodes.splice(next, graph.nodes, first_new, graph.nodes.end());
    it = any_new ? first_new : next;
    ++lowered;
  }
  // Outputs the model left out are values nothing produces now.
  if (omitted_left) graph.remove_dead_values();
  return lowered + decide_selects(graph);
}

}  // namespace kiln
