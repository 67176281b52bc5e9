// Graph rewrites of the simplification pass (canonicalization, fusion into
// weights). Each rule is a function that looks at one node and either rewrites
// the graph around it or does nothing.
#pragma once

#include <string>

#include "ir/graph.h"

namespace kiln {

// Tries every rule on `n`; returns the name of the rule that fired, or "".
std::string apply_rewrites(Graph& g, Node* n);

}  // namespace kiln
