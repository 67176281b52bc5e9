// Views and aliasing, decided before the first op is bufferized: which values are
// computed straight into a slice of a Concat's output (KernelCall::input_offsets)
// or into a run-time If's output (its KilnSelect then disappears), including a value
// an op computes in place from such a value (Relu after Conv). View ops themselves
// (KernelCall::alias_input, view_offsets) are bound as they come (views.cpp).
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "bufferize/branch_guards.h"
#include "bufferize/bufferize.h"

namespace kiln::bufferize_internal {

struct Placements {
  // Value -> the Concat (or KilnSelect) whose output holds it, and its byte offset there.
  std::map<const Value*, std::pair<const Node*, uint64_t>> into;
  // Values placed into a run-time If's output: (condition, side) they are computed under.
  std::map<const Value*, std::pair<const Value*, bool>> select_side;
};

// The placements of `g` (nothing without options.alias_views; no in-place chains
// without options.in_place). `guards`: branch_guards(g).
Placements plan_placements(const Graph& g, const std::map<const Node*, KernelCall>& calls,
                           const std::map<const Node*, std::vector<BranchGuard>>& guards,
                           const BufferizeOptions& options);

}  // namespace kiln::bufferize_internal
