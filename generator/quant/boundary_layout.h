// The layout at the boundary (docs/quantization.md, "Layout at the boundary"):
// a Transpose NCHW -> NHWC left in front of the integer ops (a model's NCHW
// input, as every PyTorch export has) is absorbed by the ops that read it when
// they can read NCHW themselves, instead of being a copy of the whole tensor.
//
// The rule: an int8 Transpose with perm [0, 2, 3, 1] whose readers are
// KilnQConv2D layers (its input 0, one group) is removed; each conv reads the
// untransposed tensor with input_nchw = 1 (its im2col / strip gather reads the
// channel planes). A conv whose lowering refuses the NCHW form for this target
// (QdqOptions::refuses) keeps the Transpose.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "ir/graph.h"

namespace kiln::quant {

// Whether the lowering refuses a node (its error message), as QdqOptions::refuses;
// unset: every node is taken.
using RefusesFn = std::function<std::optional<std::string>(const Node&)>;

// Returns how many conv inputs now read NCHW directly.
int absorb_boundary_transposes(Graph& g, const RefusesFn& refuses);

}  // namespace kiln::quant
