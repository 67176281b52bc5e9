// Rewiring one input of a node: the one edit every rewriting pass makes (fold/
// rewrites, quant/). The node's input slot and the values' user lists change
// together, so they never disagree.
#pragma once

#include <cstddef>

#include "ir/graph.h"

namespace kiln {

// Points input `slot` of `n` at `v` (null: the input is left out), keeping both
// user lists right; the inputs grow with null slots up to `slot`.
void set_input(Node* n, size_t slot, Value* v);

}  // namespace kiln
