#include "ir/graph.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "util/checked_math.h"
#include "util/error.h"
#include "util/quoted.h"

namespace kiln {

int64_t shape_elements(const Shape& s) { return checked_elements(s, "tensor"); }

std::string shape_str(const Shape& s) {
  std::ostringstream o;
  o << "[";
  for (size_t i = 0; i < s.size(); ++i) o << (i ? "," : "") << s[i];
  o << "]";
  return o.str();
}

namespace {
template <typename T>
const T* get_attr(const std::map<std::string, AttrValue>& attrs, const std::string& k, const Node& n) {
  auto it = attrs.find(k);
  if (it == attrs.end()) return nullptr;
  if (auto* v = std::get_if<T>(&it->second)) return v;
  throw CompileError(n.describe() + ": attribute " + in_quotes(k) + " has an unexpected type");
}
}  // namespace

int64_t Node::attr_int(const std::string& k, int64_t dflt) const {
  auto* v = get_attr<int64_t>(attrs, k, *this);
  return v ? *v : dflt;
}

double Node::attr_float(const std::string& k, double dflt) const {
  auto it = attrs.find(k);
  if (it == attrs.end()) return dflt;
  if (auto* d = std::get_if<double>(&it->second)) return *d;
  if (auto* i = std::get_if<int64_t>(&it->second)) return double(*i);
  throw CompileError(describe() + ": attribute " + in_quotes(k) + " is not a float");
}

std::string Node::attr_string(const std::string& k, const std::string& dflt) const {
  auto* v = get_attr<std::string>(attrs, k, *this);
  return v ? *v : dflt;
}

std::vector<int64_t> Node::attr_ints(const std::string& k, std::vector<int64_t> dflt) const {
  auto* v = get_attr<std::vector<int64_t>>(attrs, k, *this);
  return v ? *v : dflt;
}

std::vector<double> Node::attr_floats(const std::string& k, std::vector<double> dflt) const {
  auto* v = get_attr<std::vector<double>>(attrs, k, *this);
  return v ? *v : dflt;
}

ConstantPtr Node::attr_tensor(const std::string& k) const {
  auto* v = get_attr<ConstantPtr>(attrs, k, *this);
  return v ? *v : nullptr;
}

Graph* Node::attr_graph(const std::string& k) const {
  auto* v = get_attr<GraphPtr>(attrs, k, *this);
  return v ? v->get() : nullptr;
}

size_t Node::own_input_count() const {
  auto it = attrs.find("captured");
  const auto* names = it == attrs.end() ? nullptr : std::get_if<std::vector<std::string>>(&it->second);
  const size_t captured = names ? names->size() : 0;
  return captured <= inputs.size() ? inputs.size() - captured : 0;
}

std::string Node::describe() const { return escaped(op_type) + " " + in_quotes(name); }

Value* Graph::add_value(std::string name, DType dtype, Shape shape) {
  if (by_name_.count(name)) throw CompileError("the model names two values " + in_quotes(name) + "; value names must be unique");
  // -1 marks a dimension not known yet (shape_known is false until inference or
  // folding settles it); only a fully known shape can be checked for size.
  if (std::none_of(shape.begin(), shape.end(), [](int64_t d) { return d == -1; }))
    checked_elements(shape, "value " + in_quotes(name));
  auto v = std::make_unique<Value>();
  v->name = std::move(name);
  v->dtype = dtype;
  v->shape = std::move(shape);
  Value* raw = v.get();
  by_name_[raw->name] = raw;
  values_.push_back(std::move(v));
  return raw;
}

Value* Graph::find_value(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

Node* Graph::add_node(std::string op_type, std::string name, std::vector<Value*> inputs,
                      std::vector<Value*> outputs) {
  if (int64_t(nodes.size()) >= kMaxGraphNodes)
    throw CompileError("node " + in_quotes(name) + " (" + op_type + "): the graph would have more than " +
                       std::to_string(kMaxGraphNodes) +
                       " nodes, Kiln's limit (Loop, Scan and sequence bodies are unrolled into the graph)");
  auto n = std::make_unique<Node>();
  n->op_type = std::move(op_type);
  n->name = std::move(name);
  n->opset = opset;
  n->inputs = std::move(inputs);
  n->outputs = std::move(outputs);
  for (Value* v : n->inputs)
    if (v) v->users.push_back(n.get());
  for (Value* v : n->outputs) v->producer = n.get();
  nodes.push_back(std::move(n));
  return nodes.back().get();
}

void Graph::replace_all_uses(Value* from, Value* to) {
  // Nothing to do, and the loop below would append to the vector it iterates.
  if (from == to) return;
  for (Node* u : from->users) {
    for (auto& in : u->inputs)
      if (in == from) in = to;
    to->users.push_back(u);
  }
  from->users.clear();
  for (auto& o : outputs) {
    if (o == from) {
      o = to;
      to->is_graph_output = true;
      from->is_graph_output = false;
    }
  }
}

namespace {

bool unused(const Node& n) {
  return std::all_of(n.outputs.begin(), n.outputs.end(),
                     [](Value* o) { return o->users.empty() && !o->is_graph_output; });
}

// Unlinks a node from its inputs' users and its outputs' producer (the caller
// takes it out of the schedule).
void detach(Node* n) {
  for (Value* o : n->outputs)
    if (!o->users.empty() || o->is_graph_output)
      throw std::logic_error("Graph::erase_node: output " + in_quotes(o->name) + " of " + n->describe() + " is still used");
  for (Value* in : n->inputs) {
    if (!in) continue;
    auto it = std::find(in->users.begin(), in->users.end(), n);
    if (it != in->users.end()) in->users.erase(it);
  }
  for (Value* o : n->outputs) o->producer = nullptr;
}

}  // namespace

void Graph::erase_node(Node* n) {
  detach(n);
  nodes.remove_if([n](const std::unique_ptr<Node>& p) { return p.get() == n; });
}

size_t Graph::remove_dead_nodes() {
  // Backwards through the schedule: removing a node can only make the producers
  // of its inputs dead, which come earlier, so one pass usually finishes; each
  // pass is linear (an unrolled Loop has 10^5 nodes, and folding sweeps often).
  size_t removed = 0;
  bool changed = true;
  while (changed) {
    changed = false;
    for (auto it = nodes.end(); it != nodes.begin();) {
      --it;
      if (!unused(**it)) continue;
      detach(it->get());
      it = nodes.erase(it);
      ++removed;
      changed = true;
    }
  }
  return removed;
}

void Graph::remove_dead_values() {
  std::vector<std::unique_ptr<Value>> kept;
  for (auto& v : values_) {
    if (v->users.empty() && !v->producer && !v->is_graph_input && !v->is_graph_output) {
      by_name_.erase(v->name);
      continue;
    }
    kept.push_back(std::move(v));
  }
  values_ = std::move(kept);
}

const StateVariable* Graph::state_of_input(size_t k) const {
  for (const auto& s : states)
    if (s.input == k) return &s;
  return nullptr;
}

const StateVariable* Graph::state_of_output(size_t k) const {
  for (const auto& s : states)
    if (s.output == k) return &s;
  return nullptr;
}

std::string Graph::unique_name(const std::string& prefix) {
  for (;;) {
    std::string n = prefix + "_" + std::to_string(name_counter_++);
    if (!by_name_.count(n)) return n;
  }
}

}  // namespace kiln
