#include "quant/graph_edit.h"

#include <algorithm>
#include <stdexcept>

namespace kiln::quant {

bool is_default_domain(const Node* n) { return n->domain.empty() || n->domain == "ai.onnx"; }

bool is_op(const Node* n, const char* op) { return n && is_default_domain(n) && n->op_type == op; }

bool is_dead(const Node* n) {
  return std::all_of(n->outputs.begin(), n->outputs.end(),
                     [](const Value* o) { return o->users.empty() && !o->is_graph_output; });
}

NodeIt position_of(Graph& g, const Node* n) {
  for (auto it = g.nodes.begin(); it != g.nodes.end(); ++it)
    if (it->get() == n) return it;
  throw std::logic_error("quant: node " + n->describe() + " is not in the schedule");
}

namespace {
Node* add_at(Graph& g, NodeIt pos, const std::string& op, const std::string& name, std::vector<Value*> ins,
             std::vector<Value*> outs) {
  Node* n = g.add_node(op, g.unique_name(name), std::move(ins), std::move(outs));
  g.nodes.splice(pos, g.nodes, std::prev(g.nodes.end()));
  return n;
}
}  // namespace

Node* insert_before(Graph& g, const Node* anchor, const std::string& op, const std::string& name,
                    std::vector<Value*> ins, std::vector<Value*> outs) {
  return add_at(g, position_of(g, anchor), op, name, std::move(ins), std::move(outs));
}

Node* insert_after(Graph& g, const Node* anchor, const std::string& op, const std::string& name,
                   std::vector<Value*> ins, std::vector<Value*> outs) {
  return add_at(g, std::next(position_of(g, anchor)), op, name, std::move(ins), std::move(outs));
}

Value* detach_output(Graph& g, Node* n, size_t i) {
  Value* v = n->outputs[i];
  Value* stand_in = g.add_value(g.unique_name(v->name + "_unused"), v->dtype, v->shape);
  stand_in->producer = n;
  n->outputs[i] = stand_in;
  v->producer = nullptr;
  return v;
}

Value* constant_value(Graph& g, const std::string& hint, ConstantPtr c) {
  Value* v = g.add_value(g.unique_name(hint), c->dtype(), c->shape());
  v->constant = std::move(c);
  return v;
}

void erase_if_dead(Graph& g, Node* n) {
  std::vector<Node*> work{n};
  while (!work.empty()) {
    Node* m = work.back();
    work.pop_back();
    if (std::find_if(g.nodes.begin(), g.nodes.end(), [m](const auto& p) { return p.get() == m; }) == g.nodes.end())
      continue;
    if (!is_dead(m)) continue;
    std::vector<Node*> producers;
    for (Value* in : m->inputs)
      if (in && in->producer) producers.push_back(in->producer);
    g.erase_node(m);
    work.insert(work.end(), producers.begin(), producers.end());
  }
}

}  // namespace kiln::quant
