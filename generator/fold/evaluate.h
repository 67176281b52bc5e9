// Host evaluation of nodes whose inputs are known at compile time. Values are
// computed in wide precision (double for floats, int64 for integers) and rounded
// once to the output dtype (see docs/folding.md).
#pragma once

#include <vector>

#include "ir/graph.h"

namespace kiln {

struct EvalResult {
  bool evaluated = false;
  bool skipped_by_size_limit = false;
  std::vector<ConstantPtr> outputs;
};

// Ops whose result depends only on input shapes (Shape, Size): foldable even when
// the input is computed at run time.
bool can_evaluate_without_inputs(const Node& n);

// Evaluates `n` if Kiln has an evaluator for it; `size_limit` bounds the bytes of
// a result that is bigger than the node's inputs.
EvalResult evaluate_node(const Node& n, int64_t size_limit);

}  // namespace kiln
