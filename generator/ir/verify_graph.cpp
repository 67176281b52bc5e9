#include "ir/verify_graph.h"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include "ir/kiln_ops.h"
#include "util/quoted.h"

namespace kiln {

namespace {

std::optional<std::string> links(const Node& n) {
  for (const Value* v : n.inputs) {
    if (!v) continue;
    const size_t uses = size_t(std::count(n.inputs.begin(), n.inputs.end(), v));
    if (size_t(std::count(v->users.begin(), v->users.end(), &n)) != uses)
      return n.describe() + ": input " + in_quotes(v->name) + " does not list the node among its users once per use";
  }
  for (const Value* v : n.outputs)
    if (v && v->producer != &n) return n.describe() + ": output " + in_quotes(v->name) + " names another producer";
  return std::nullopt;
}

}  // namespace

std::optional<std::string> graph_problem(const Graph& g) {
  std::unordered_set<const Node*> done;
  std::unordered_set<const Node*> in_graph;
  std::set<std::string> names;
  for (const auto& n : g.nodes) in_graph.insert(n.get());
  for (const auto& p : g.nodes) {
    const Node& n = *p;
    if (!names.insert(n.name).second) return "two nodes are named " + in_quotes(n.name);
    if (auto e = links(n)) return e;
    for (const Value* v : n.inputs)
      if (v && v->producer && in_graph.count(v->producer) && !done.count(v->producer))
        return n.describe() + ": input " + in_quotes(v->name) + " is produced later, by " + v->producer->describe();
    if (n.domain.empty() && ops::is_kiln_op(n.op_type))
      if (auto e = ops::verify_node(n)) return n.describe() + ": " + *e;
    for (const auto& [name, attr] : n.attrs)
      if (const GraphPtr* sub = std::get_if<GraphPtr>(&attr); sub && *sub)
        if (auto e = graph_problem(**sub)) return n.describe() + ", subgraph " + in_quotes(name) + ": " + *e;
    done.insert(&n);
  }
  for (const Value* v : g.outputs)
    if (!v) return "a graph output is null";
  return std::nullopt;
}

void verify_graph(const Graph& g, const std::string& stage) {
  if (auto e = graph_problem(g)) throw std::logic_error("internal error: the graph after " + stage + " is malformed: " + *e);
}

}  // namespace kiln
