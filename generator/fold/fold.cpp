#include "fold/fold.h"

#include <deque>
#include <set>
#include <sstream>

#include "fold/evaluate.h"
#include "fold/rewrites.h"
#include "util/error.h"

namespace kiln {

namespace {

uint64_t constant_bytes(const Graph& g) {
  // Distinct storage reachable from the graph (shared constants count once).
  std::set<const Constant*> seen;
  uint64_t total = 0;
  for (const auto& v : g.values())
    if (v->constant && (!v->users.empty() || v->is_graph_output) && seen.insert(v->constant.get()).second)
      total += v->constant->size_bytes();
  return total;
}

bool all_inputs_constant(const Node& n) {
  for (const Value* v : n.inputs)
    if (v != nullptr && !v->is_constant()) return false;
  return true;
}

// Replaces node `n` (all of whose outputs now have constants) by those constants.
void replace_by_constants(Graph& g, Node* n, const std::vector<ConstantPtr>& results) {
  for (size_t i = 0; i < n->outputs.size(); ++i) {
    Value* out = n->outputs[i];
    if (i >= results.size() || !results[i]) continue;
    if (out->is_graph_output) {
      // A graph output keeps its name: the value itself becomes the constant and
      // the node gets a private, unused output in its place (so it dies).
      out->constant = results[i];
      out->producer = nullptr;
      n->outputs[i] = g.add_value(g.unique_name(out->name + "_dead"), out->dtype, out->shape);
      n->outputs[i]->producer = n;
      continue;
    }
    Value* c = g.add_value(g.unique_name(out->name + "_folded"), results[i]->dtype(), results[i]->shape());
    c->constant = results[i];
    g.replace_all_uses(out, c);
  }
}

}  // namespace

FoldReport fold_and_simplify(Graph& g, const FoldOptions& options) {
  FoldReport r;
  r.nodes_before = g.nodes.size();
  r.constant_bytes_before = constant_bytes(g);

  // Top-down worklist: nodes in schedule order; when a node is rewritten or
  // folded, its users are queued again so chains resolve in one pass.
  std::deque<Node*> work;
  std::set<Node*> queued;
  for (auto& n : g.nodes) work.push_back(n.get()), queued.insert(n.get());
  int rewrites = 0;
  while (!work.empty() && rewrites < options.max_rewrites) {
    Node* n = work.front();
    work.pop_front();
    queued.erase(n);
    bool alive = false;
    for (const auto& p : g.nodes) alive |= p.get() == n;
    if (!alive) continue;
    std::vector<Node*> users;
    for (Value* o : n->outputs)
      for (Node* u : o->users) users.push_back(u);

    bool changed = false;
    if (all_inputs_constant(*n) || can_evaluate_without_inputs(*n)) {
      EvalResult e = evaluate_node(*n, options.size_limit_bytes);
      if (e.skipped_by_size_limit) {
        r.skipped_by_size_limit.push_back(n->describe());
      } else if (e.evaluated) {
        replace_by_constants(g, n, e.outputs);
        r.folded[n->op_type]++;
        changed = true;
        g.remove_dead_nodes();
      }
    }
    if (!changed) {
      std::string rule = apply_rewrites(g, n);
      if (!rule.empty()) {
        r.rewritten[rule]++;
        changed = true;
      }
    }
    if (changed) {
      ++rewrites;
      for (Node* u : users)
        if (queued.insert(u).second) work.push_back(u);
    }
  }
  if (rewrites >= options.max_rewrites)
    throw CompileError("constant folding did not settle within " + std::to_string(options.max_rewrites) + " rewrites");
  g.remove_dead_nodes();
  if (options.gc) g.remove_dead_values();  // drops the last references to dead constants
  r.nodes_after = g.nodes.size();
  r.constant_bytes_after = constant_bytes(g);
  return r;
}

nlohmann::json fold_report_to_json(const FoldReport& r) {
  return {{"nodes_before", r.nodes_before},
          {"nodes_after", r.nodes_after},
          {"constant_bytes_before", r.constant_bytes_before},
          {"constant_bytes_after", r.constant_bytes_after},
          {"folded", r.folded},
          {"rewritten", r.rewritten},
          {"skipped_by_size_limit", r.skipped_by_size_limit}};
}

std::string fold_report_summary(const FoldReport& r) {
  std::ostringstream o;
  int folded = 0, rewritten = 0;
  for (const auto& [_, c] : r.folded) folded += c;
  for (const auto& [_, c] : r.rewritten) rewritten += c;
  o << "folding: " << r.nodes_before << " -> " << r.nodes_after << " nodes (" << folded << " folded, " << rewritten
    << " rewritten), constants " << r.constant_bytes_before << " -> " << r.constant_bytes_after << " bytes";
  if (!r.skipped_by_size_limit.empty()) o << ", " << r.skipped_by_size_limit.size() << " left by --fold-size-limit";
  o << "\n";
  return o.str();
}

}  // namespace kiln
