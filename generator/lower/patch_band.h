// The band of output rows the patch-based inverted residual kernel computes at a
// time (kiln_inverted_residual_f32, crt/include/kiln/conv.h), and its scratch:
// decided here once for both users, the fusion that chooses which blocks run
// patch-based (schedule/patch_fusion.h) and the lowering of KilnInvertedResidual.
#pragma once

#include <cstdint>

namespace kiln {

struct PatchBand {
  uint64_t rows = 0;           // output rows per band; 0: no band pays (see below)
  uint64_t scratch_bytes = 0;  // the kernel's scratch with `rows`
};

// Scratch bytes of a band of `rows` output rows: the expanded rows the band's
// depthwise reads, a ring of three padded rows, the band's depthwise output.
uint64_t patch_scratch_bytes(uint64_t expanded_channels, uint64_t stride, uint64_t w_in, uint64_t w_out,
                             uint64_t rows);

// The largest band whose scratch stays within the budget (64 KiB for speed, 32 KiB
// with --memory-priority ram; one row may exceed it) and with which the fused op's input, output and
// scratch together take fewer bytes than the expanded tensor alone (`expanded_bytes`),
// which the unfused block must hold at once; rows = 0 when even one row does not.
PatchBand choose_patch_band(uint64_t expanded_channels, uint64_t stride, uint64_t w_in, uint64_t w_out, uint64_t h_out,
                            uint64_t in_bytes, uint64_t out_bytes, uint64_t expanded_bytes, bool ram_priority);

}  // namespace kiln
