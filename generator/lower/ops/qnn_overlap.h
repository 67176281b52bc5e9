// Partial reuse for the int8 kernels (KernelCall::overlaps, bufferize/overlap.h):
// how far below its input an NHWC int8 output must start so that the kernel never
// overwrites an input byte it has still to read. Derived from the kernels' read and
// write order (crt/src/kernels/s8/, each form on every target):
//
//  * Conv2D (one group) and FullyConnected: output pixels (rows) in raster order;
//    a pixel's window is read (widened into scratch, or read in place) before its
//    outputs are written, and no window is read again after a later pixel's
//    outputs are written. Forms that write a pair of pixels while still reading
//    their windows in place (the int8-weight form on MVE for a pointwise layer,
//    its fully connected form) are `reads_during_writes` with steps of two pixels.
//  * Depthwise Conv2D (depth multiplier 1) and pooling: per output pixel (on MVE,
//    per group of eight channels, every pixel), channel c of the output is written
//    only after channel c of the pixel's window was read, and reads nothing but
//    channel c of the input. With the output at a whole number of pixels from the
//    input (granule = channels), a write of channel c can only meet channel c of
//    an input pixel, so the same per-pixel rule holds.
//
// The rule: with output pixel (row) p at out_offset + p * out_c, writing steps of
// `step` pixels, the output may start at in_offset + delta for every
// delta <= limit, where limit = min over steps k of (lowest input byte read after
// step k's writes) - (end of step k's output bytes); the lower the output, the
// further its writes stay below the reads still to come.
#pragma once

#include <cstdint>
#include <limits>

#include "lower/lowering.h"

namespace kiln {

// An NHWC window op (batch 1): input in_h x in_w x in_c, output out_h x out_w x
// out_c; pad_top / pad_left lead (trailing pads only shorten windows).
struct S8Window {
  int64_t in_h = 1, in_w = 1, in_c = 1, out_h = 1, out_w = 1, out_c = 1;
  int64_t kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  int64_t pad_top = 0, pad_left = 0;
};

constexpr int64_t kS8NoOverlapLimit = std::numeric_limits<int64_t>::min();

// The largest delta (bytes, output start - input start) at which the kernel never
// overwrites an input byte it still reads; kS8NoOverlapLimit when the geometry is
// degenerate. `step`: output pixels written together; `reads_during_writes`: a
// step's own window is still read while its outputs are written.
int64_t s8_overlap_limit(const S8Window& w, int64_t step, bool reads_during_writes);

// Declares that output 0 (out_bytes) may start at any multiple of `granule` from
// input 0 up to `limit` (KernelCall::Overlap with the call's own text and scratch).
void add_s8_overlap(KernelCall& k, uint64_t out_bytes, int64_t limit, int64_t granule);

}  // namespace kiln
