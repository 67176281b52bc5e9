#include "bufferize/branch_guards.h"

#include <set>

namespace kiln {

namespace {

bool is_select_on(const Node* n, const Value* cond) {
  return n->op_type == "KilnSelect" && n->domain.empty() && n->inputs.size() == 3 && n->inputs[0] == cond;
}

}  // namespace

std::map<const Node*, std::vector<BranchGuard>> branch_guards(const Graph& graph) {
  std::map<const Node*, std::vector<BranchGuard>> guards;
  std::set<const Value*> conds;
  for (const auto& n : graph.nodes)
    if (n->op_type == "KilnSelect" && n->domain.empty() && n->inputs.size() == 3 && n->inputs[0] &&
        !n->inputs[0]->is_constant())
      conds.insert(n->inputs[0]);
  std::vector<const Node*> schedule;
  for (const auto& n : graph.nodes) schedule.push_back(n.get());
  for (const Value* cond : conds) {
    // side: 1 then only, 2 else only, 0 neither (needed otherwise, or not at all).
    std::map<const Node*, int> side;
    bool after_cond = cond->producer == nullptr;  // a graph input exists from the start
    std::set<const Node*> after;                  // nodes scheduled after cond's producer
    for (const Node* n : schedule) {
      if (after_cond) after.insert(n);
      if (n == cond->producer) after_cond = true;
    }
    for (auto it = schedule.rbegin(); it != schedule.rend(); ++it) {
      const Node* n = *it;
      int s = -1;  // -1: no use seen yet
      for (const Value* o : n->outputs) {
        if (o->is_graph_output || o == cond) s = 0;
        for (const Node* u : o->users) {
          int us = 0;
          if (is_select_on(u, cond)) {
            const bool as_then = u->inputs[1] == o, as_else = u->inputs[2] == o;
            us = as_then && !as_else ? 1 : as_else && !as_then ? 2 : 0;
          } else {
            auto k = side.find(u);
            us = k == side.end() ? 0 : k->second;
          }
          s = s < 0 ? us : (s == us ? s : 0);
        }
      }
      if (s < 0) s = 0;  // dead: leave it alone
      if (!after.count(n)) s = 0;  // the condition is not computed yet when it runs
      side[n] = s;
      if (s > 0) guards[n].push_back({cond, s == 1});
    }
  }
  return guards;
}

bool is_runtime_select(const Node& n) {
  return n.op_type == "KilnSelect" && n.domain.empty() && n.inputs.size() == 3 && n.outputs.size() == 1 &&
         n.inputs[0] && !n.inputs[0]->is_constant();
}

bool guarded_on(const std::map<const Node*, std::vector<BranchGuard>>& guards, const Node* n, const Value* cond,
                bool when) {
  auto g = guards.find(n);
  if (g == guards.end()) return false;
  for (const BranchGuard& bg : g->second)
    if (bg.cond == cond && bg.when == when) return true;
  return false;
}

}  // namespace kiln
