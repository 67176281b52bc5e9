// Which ops need to run only on one side of a run-time If.
//
// An If on run-time data is flattened into both branches plus one KilnSelect
// (cond, then_value, else_value) per output (controlflow/control_flow.h). A node whose
// results are needed, directly or through other such nodes, only by the then side
// of KilnSelects on `cond` computes nothing anyone reads when `cond` is false, so it
// runs under `if (cond)`; likewise for the else side. This is derived from the
// graph as it is at lowering time (whatever folding did to the branches), so a
// guard is always safe: a node that any other consumer, a graph output, or the
// other side needs gets no guard.
#pragma once

#include <map>
#include <vector>

#include "ir/graph.h"

namespace kiln {

struct BranchGuard {
  const Value* cond = nullptr;  // a bool scalar
  bool when = true;             // the node runs when cond == when
};

// Guards per node (nodes without any are absent). A node may have several (nested
// Ifs): it runs when all hold.
std::map<const Node*, std::vector<BranchGuard>> branch_guards(const Graph& graph);

// A KilnSelect on a run-time condition: the join of a run-time If.
bool is_runtime_select(const Node& n);

// Whether `n` runs only when `cond` is `when` (`guards`: branch_guards(graph)).
bool guarded_on(const std::map<const Node*, std::vector<BranchGuard>>& guards, const Node* n, const Value* cond,
                bool when);

}  // namespace kiln
