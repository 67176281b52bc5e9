// Residual fusion for memory: Conv -> Add(conv_out, r) becomes one KilnConvAdd(X, W,
// B, r) whose output may take over r's buffer when the Add was r's last user, so
// the convolution's result never exists beside both of the block's other tensors
// (ResNet: the skip input, the branch's middle tensor and the branch's output).
// The kernel computes each tile of the convolution exactly as Conv does, then adds
// r (crt/include/kiln/conv.h, kiln_conv2d_add_f32): results are bit-identical.
#pragma once

#include <cstddef>

#include "ir/graph.h"

namespace kiln {

// Fuses every float32 Conv (constant weights, one group, not depthwise, batch 1)
// whose output's one user is a same-shape Add. Returns how many.
size_t fuse_residual_adds(Graph& g);

}  // namespace kiln
