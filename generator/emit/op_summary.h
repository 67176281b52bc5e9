// What a profile says about one operator call besides its cost: the op type, the
// output shape, and the multiply-accumulates of the ops that are mostly MACs.
#pragma once

#include <cstdint>

#include "ir/graph.h"

namespace kiln {

// Multiply-accumulates one run of `node` performs: convolutions (ONNX Conv,
// ConvInteger, QLinearConv, ConvTranspose, KilnQConv2D, KilnQDepthwiseConv2D) and
// matrix products (Gemm, MatMul, MatMulInteger, QLinearMatMul,
// KilnQFullyConnected); 0 for every other op, where MACs say little.
uint64_t multiply_accumulates(const Node& node);

}  // namespace kiln
