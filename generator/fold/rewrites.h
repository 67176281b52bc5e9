// Graph rewrites of the simplification pass: canonicalization (so constants meet
// and fold), identity removal, fusion of normalizations and per-channel affine ops
// into weights, merging of consecutive layout ops. Each rule looks at one node and
// either rewrites the graph around it (in place: no node is added, so the schedule
// stays topological) or does nothing.
#pragma once

#include <string>
#include <vector>

#include "fold/constant_pool.h"
#include "ir/graph.h"

namespace kiln {

struct RewriteContext {
  Graph& graph;
  ConstantPool& pool;
  std::vector<Node*> revisit;  // nodes a rule changed: the pass looks at them again
};

// Tries every rule on `n`; returns the name of the rule that fired, or "".
std::string apply_rewrites(RewriteContext& ctx, Node* n);

// Every rule name apply_rewrites can return (documentation, reports, tests).
const std::vector<std::string>& rewrite_rule_names();

}  // namespace kiln
