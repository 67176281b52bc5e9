#include "sequence/sequence_graph.h"

#include <algorithm>
#include <iterator>

namespace kiln::sequence_graph {

bool is_list_producer(const Node* n) {
  return n && (n->op_type == "SequenceConstruct" || n->op_type == "SequenceEmpty");
}

std::optional<std::vector<Value*>> list_of(const Value* s) {
  if (!s || !s->is_sequence || !is_list_producer(s->producer)) return std::nullopt;
  return s->producer->inputs;
}

std::optional<int64_t> const_int(const Value* v) {
  if (!v || !v->is_constant() || v->constant->num_elements() != 1) return std::nullopt;
  return v->constant->as_int64(0);
}

void retarget(Node* n, const std::string& op_type, const std::vector<Value*>& inputs) {
  for (Value* v : n->inputs) {
    if (!v) continue;
    auto it = std::find(v->users.begin(), v->users.end(), n);
    if (it != v->users.end()) v->users.erase(it);
  }
  n->inputs = inputs;
  while (!n->inputs.empty() && !n->inputs.back()) n->inputs.pop_back();
  for (Value* v : n->inputs)
    if (v) v->users.push_back(n);
  n->op_type = op_type;
  n->attrs.clear();
}

Node* insert_before(Graph& g, NodeIt pos, const std::string& op, const std::string& name, std::vector<Value*> ins,
                    std::vector<Value*> outs) {
  Node* n = g.add_node(op, g.unique_name(name), std::move(ins), std::move(outs));
  g.nodes.splice(pos, g.nodes, std::prev(g.nodes.end()));
  return n;
}

}  // namespace kiln::sequence_graph
