// Queries on control-flow nodes shared by every lowering (node_view.h).
#include "controlflow/node_view.h"

#include <stdexcept>

namespace kiln::controlflow {

bool is_control_flow(const Node& n) {
  return n.domain.empty() && (n.op_type == "If" || n.op_type == "Scan" || n.op_type == "Loop");
}

const Graph* subgraph(const Node& n, const std::string& k) {
  auto it = n.attrs.find(k);
  if (it == n.attrs.end()) return nullptr;
  const GraphPtr* g = std::get_if<GraphPtr>(&it->second);
  return g ? g->get() : nullptr;
}

bool is_omitted_output(const Node& n, const Value* v) {
  return v->users.empty() && !v->is_graph_output && !v->is_sequence && v->dtype == DType::Undefined &&
         v->name.rfind(n.name + "_unused", 0) == 0;
}

void NodeView::keep_node(const std::vector<Value*>&) const {
  throw std::logic_error(name + ": a node of the graph cannot be kept as a new node");
}

}  // namespace kiln::controlflow
