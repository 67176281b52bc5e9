// Compile-time knowledge of values and Loops (compile_time.h).
#include "controlflow/compile_time.h"

#include <optional>

#include "eval/evaluate.h"

namespace kiln::controlflow {

namespace {

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

}  // namespace

Node detached_copy(const Node& n) {
  Node copy;
  copy.name = n.name;
  copy.op_type = n.op_type;
  copy.domain = n.domain;
  copy.opset = n.opset;
  copy.attrs = n.attrs;
  return copy;
}

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

int known_bool(const Value* v) {
  while (!v->constant && v->producer && v->producer->op_type == "Identity" && v->producer->input(0))
    v = v->producer->input(0);
  if (!v->constant || v->constant->dtype() != DType::Bool || v->constant->num_elements() < 1) return -1;
  const uint8_t* d = v->constant->data();
  bool all_true = true, all_false = true;
  for (int64_t i = 0; i < v->constant->num_elements(); ++i) (d[i] ? all_false : all_true) = false;
  return all_true ? 1 : all_false ? 0 : -1;
}

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

bool loop_decidable(const NodeView& loop) {
  const Node& n = *loop.node;
  for (const Value* v : n.outputs)
    if (v->is_sequence) return true;
  const size_t own = loop.own_inputs;
  for (size_t i = 2; i < own; ++i)
    if (loop.input(i) && loop.input(i)->is_sequence) return true;
  std::deque<Value> tmp;
  const Value* m = own > 0 ? loop.input(0) : nullptr;
  if (m && !compile_time_value(m, 0, &tmp)) return false;
  const Value* cond = own > 1 ? loop.input(1) : nullptr;
  if (cond && known_bool(cond) < 0) {
    ConstantPtr c = compile_time_value(cond, 0, &tmp);
    if (!c || c->dtype() != DType::Bool) return false;
  }
  return true;
}

}  // namespace kiln::controlflow
