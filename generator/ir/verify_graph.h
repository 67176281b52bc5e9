// The graph's invariants, checked between passes: what every pass may assume and
// must leave true. A failure is Kiln's own bug (std::logic_error naming the pass
// before it, the node and the broken rule), never a user's mistake.
//
//   links    every input's users list the node (once per use), every output's
//            producer is the node, every graph output is a value of the graph
//   order    a node's inputs are produced by nodes before it in the schedule
//   names    node names are unique
//   ops      every node of Kiln's own operators ("Kiln..." op types) holds to its
//            definition in ir/kiln_ops.h
//
// Subgraphs (If branches, Loop bodies still held as attributes) are checked the
// same way, each against its own scope.
#pragma once

#include <optional>
#include <string>

#include "ir/graph.h"

namespace kiln {

// The first broken invariant of `g`, or nullopt.
std::optional<std::string> graph_problem(const Graph& g);

// Throws std::logic_error("internal error: after <stage>: <problem>") when `g`
// breaks an invariant.
void verify_graph(const Graph& g, const std::string& stage);

}  // namespace kiln
