// Instantiating a subgraph (an If branch, a Scan or Loop body) once as plain nodes
// of the enclosing graph: its inputs bound to given values, its captures to the
// enclosing scope's, fresh value names under a prefix, Constant nodes and
// initializers as constant values, and each node's open output shapes inferred with
// whatever is known at compile time. Control flow nested in the body is lowered on
// the spot through a BodyNodeView (its values those of this instance), or kept as a
// node of the enclosing graph while undecided.
#include <algorithm>
#include <deque>

#include "controlflow/compile_time.h"
#include "controlflow/flattener.h"
#include "util/error.h"
#include "util/quoted.h"

namespace kiln::controlflow {

namespace {

// The instance of body value `v` (null stays null: an omitted input).
Value* mapped(const std::map<const Value*, Value*>& local, const Value* v, const std::string& who) {
  if (!v) return nullptr;
  auto it = local.find(v);
  if (it == local.end())
    throw CompileError(who + ": input " + in_quotes(v->name) + " is not defined in the subgraph or its scope");
  return it->second;
}

}  // namespace

// A control-flow node of a body being instantiated: its inputs and captures are
// this instance's values, its outputs are made (with make_local) when the lowering
// asks for them, and an undecided one is recreated as a node of the enclosing graph.
class Flattener::BodyNodeView : public NodeView {
 public:
  BodyNodeView(Flattener& f, const Node& b, const std::string& unique_name, const std::string& prefix,
               std::map<const Value*, Value*>& local)
      : f_(f), b_(b), who_(b.op_type + " " + in_quotes(unique_name)), prefix_(prefix), local_(local) {
    node = &b;
    name = unique_name;
    own_inputs = b.own_input_count();
    captured = captured_values(b, [this](const Value* v) { return mapped(local_, v, who_); });
  }

  Value* input(size_t i) const override { return i < b_.inputs.size() ? mapped(local_, b_.inputs[i], who_) : nullptr; }
  Value* make_output(size_t i) const override { return f_.make_local(b_.outputs[i], prefix_, who_, &local_); }
  // make_local leaves a shape inference could not tell open.
  Value* make_open_output(size_t i) const override { return make_output(i); }
  Value* make_output_typed(size_t i, DType dt, const Shape& shape) const override {
    const Value* bv = b_.outputs[i];
    if (bv->is_sequence || (bv->dtype != DType::Undefined && bv->shape_known))
      return f_.make_local(bv, prefix_, who_, &local_);
    Value* v = f_.g_.add_value(f_.g_.unique_name(prefix_ + bv->name), dt, shape);
    local_[bv] = v;
    return v;
  }
  bool can_keep() const override { return true; }
  void keep_node(const std::vector<Value*>& outs) const override {
    std::vector<Value*> ins;
    for (size_t j = 0; j < b_.own_input_count(); ++j) ins.push_back(input(j));
    for (size_t j = b_.own_input_count(); j < b_.inputs.size(); ++j) ins.push_back(mapped(local_, b_.inputs[j], name));
    Node* n = f_.g_.add_node(b_.op_type, name, ins, outs);
    n->attrs = b_.attrs;
    n->opset = b_.opset;
  }

 private:
  Flattener& f_;
  const Node& b_;
  const std::string who_;
  const std::string prefix_;
  std::map<const Value*, Value*>& local_;
};

std::vector<Value*> Flattener::import_body(const Graph& body, const std::vector<Value*>& bound,
                                           const std::map<std::string, Value*>& captured, const std::string& prefix,
                                           const std::string& who, bool open_outputs) {
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
  for (const auto& bn : body.nodes) import_node(*bn, prefix, local);
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

// One node of a body instance: a Constant becomes a constant value, nested control
// flow is lowered now (its values and outputs in this instance), any other node is
// copied with its inputs and outputs mapped.
void Flattener::import_node(const Node& b, const std::string& prefix, std::map<const Value*, Value*>& local) {
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
    return;
  }
  if (is_control_flow(b)) {
    flatten(BodyNodeView(*this, b, name, prefix, local), /*undecided_too=*/false);
    return;
  }
  std::vector<Value*> ins;
  for (const Value* in : b.inputs) ins.push_back(mapped(local, in, nwho));
  std::vector<Value*> outs;
  for (const Value* out : b.outputs) {
    if (is_omitted_output(b, out)) outs.push_back(g_.add_value(g_.unique_name(name + "_unused"), DType::Undefined, {}));
    else outs.push_back(make_local(out, prefix, nwho, &local));
  }
  Node* n = g_.add_node(b.op_type, name, ins, outs);
  n->attrs = b.attrs;
  if (std::any_of(outs.begin(), outs.end(), [](const Value* v) { return !v->shape_known; })) infer_with_constants(*n);
}

// The instance of body value `bv`, typed as the body says: a sequence, a tensor
// whose shape ONNX's inference could not tell from the body alone (it depends on
// a value the body computes, or on an untyped body input: inferred once its node is
// added, see infer_with_constants, else after folding), or a static tensor.
Value* Flattener::make_local(const Value* bv, const std::string& prefix, const std::string& who,
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
void Flattener::infer_with_constants(Node& n) {
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

}  // namespace kiln::controlflow
