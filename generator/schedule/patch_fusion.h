// Patch-based execution (MCUNetV2-style) of inverted residual blocks: the chain
//   Conv 1x1 (expand) -> Clip -> Conv depthwise 3x3 -> Clip -> Conv 1x1 (project)
// becomes one KilnInvertedResidual op whose kernel computes the block in bands of
// output rows (crt/include/kiln/conv.h, kiln_inverted_residual_f32), so the
// expanded tensor never exists whole. Bit-identical results; a few more
// instructions (expanded rows shared by two bands are computed twice).
#pragma once

#include <cstddef>

#include "ir/graph.h"

namespace kiln {

// Fuses the blocks that set the peak, largest expanded tensor first: a block whose
// expanded tensor is larger than every tensor outside such blocks and than every
// fused block's input + output + scratch (with `ram`: than half of that), and whose
// fused op then holds fewer bytes than its expanded tensor alone
// (lower/patch_band.h). Returns how many.
size_t fuse_inverted_residuals(Graph& g, bool ram);

}  // namespace kiln
