// A control-flow node (If / Scan / Loop) as the lowering sees it, wherever the node
// is: a node of the graph being lowered (control_flow.cpp), or a node nested in a
// body being instantiated (body_import.cpp), whose inputs and outputs are that
// instance's values and may not exist yet. The lowerings read the node through this
// interface only, so one If / Scan / Loop lowering serves both places.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace kiln::controlflow {

bool is_control_flow(const Node& n);

// The subgraph attribute `k` of `n`, or null (absent, or not a subgraph).
const Graph* subgraph(const Node& n, const std::string& k);

// An output the model left out (an empty name): the importer and the subgraph
// converter give it a private "<node>_unused" name and no type.
bool is_omitted_output(const Node& n, const Value* v);

class NodeView {
 public:
  virtual ~NodeView() = default;

  const Node* node = nullptr;
  std::string name;  // unique in the enclosing graph
  size_t own_inputs = 0;
  // The values of the enclosing scope the node's subgraphs read, by their names there.
  std::map<std::string, Value*> captured;

  // Own input i in the enclosing graph (null: omitted, or past the own inputs).
  virtual Value* input(size_t i) const = 0;
  std::string output_name(size_t i) const { return node->outputs[i]->name; }
  bool omitted(size_t i) const { return is_omitted_output(*node, node->outputs[i]); }
  // Output i in the enclosing graph, of static type (else a CompileError).
  virtual Value* make_output(size_t i) const = 0;
  // Output i, its shape maybe still open (inferred later).
  virtual Value* make_open_output(size_t i) const = 0;
  // Output i with the type the node declares statically, else with this one (an
  // open scan-output length takes the computed type).
  virtual Value* make_output_typed(size_t i, DType dt, const Shape& shape) const = 0;
  // Whether the node can be kept undecided (an If on run-time data, or a Loop whose
  // trip count or condition is not known yet, inside a body): only a nested node,
  // which keep_node recreates as a node of the enclosing graph with `outs`. A node of
  // the graph itself is simply not lowered yet.
  virtual bool can_keep() const { return false; }
  virtual void keep_node(const std::vector<Value*>& outs) const;
};

// The captured values of `n` (its last inputs, named by its "captured" attribute),
// each passed through `map` (the enclosing instance's value for it).
template <typename Map>
std::map<std::string, Value*> captured_values(const Node& n, Map map) {
  std::map<std::string, Value*> r;
  auto it = n.attrs.find("captured");
  if (it == n.attrs.end()) return r;
  const auto& names = std::get<std::vector<std::string>>(it->second);
  const size_t own = n.own_input_count();
  for (size_t j = 0; j < names.size() && own + j < n.inputs.size(); ++j) r[names[j]] = map(n.inputs[own + j]);
  return r;
}

}  // namespace kiln::controlflow
