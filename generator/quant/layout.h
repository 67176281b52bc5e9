// NCHW <-> NHWC for the integer ops (docs/quantization.md, "ONNX models").
//
// ONNX tensors are NCHW; the spatial integer ops are NHWC. The QDQ rewrite puts
// a Transpose NCHW -> NHWC in front of each spatial op and NHWC -> NCHW after it;
// this pass removes them again wherever the layout does not matter, so an
// all-integer CNN keeps at most one Transpose at its input and one at its output:
//
//  - two Transposes in a row compose (and vanish when the result is the identity);
//  - element-wise int8 ops (KilnQAdd / Sub / Mul, KilnQLookup) and int8 Concat / Pad
//    whose runtime inputs all come through the same Transpose run on the
//    untransposed tensors instead (constant operands are permuted at compile time)
//    and the Transpose moves after them, towards the next op that cancels it;
//  - Transpose -> Flatten / Reshape to [N, K] -> KilnQFullyConnected: the reshape
//    reads the untransposed tensor and the weights' columns are permuted instead;
//  - a Transpose that moves only dimensions of size 1 is a Reshape (a view).
#pragma once

#include <cstdint>
#include <vector>

#include "ir/graph.h"

namespace kiln::quant {

inline const std::vector<int64_t> kToNhwc{0, 2, 3, 1};
inline const std::vector<int64_t> kToNchw{0, 3, 1, 2};

struct LayoutStats {
  int composed = 0;          // Transpose pairs merged (or cancelled)
  int sunk = 0;              // Transposes moved after a layout-free op
  int weights_permuted = 0;  // fully-connected layers that took a Transpose into their weights
  int as_reshape = 0;        // Transposes of size-1 dimensions turned into Reshapes
};

// Works on int8 Transposes only (the ones the quantization passes deal with).
LayoutStats optimize_layout_transposes(Graph& g);

}  // namespace kiln::quant
