// Partial reuse: an output placed inside (or across) the bytes of an input that dies
// at its op, at an offset the op's kernel declares safe (KernelCall::Overlap).
//
// The bufferizer keeps both values in one buffer: the output goes at
// in_offset + m * granule. When no m keeps the output inside the buffer, the
// buffer may grow (every value already in it moves up by `shift`, a multiple of
// the buffer alignment) so that the input and the output fit together in less
// than their two sizes. check_overlaps re-derives, independently of the choice,
// that every op whose output shares bytes with one of its inputs is allowed to.
#pragma once

#include <cstdint>
#include <string>

#include "bufferize/bufferize.h"

namespace kiln {

struct OverlapChoice {
  bool ok = false;
  uint64_t out_offset = 0;  // offset of the output in the (possibly grown) buffer
  uint64_t shift = 0;       // how far every value already in the buffer moves up
  uint64_t new_size = 0;    // the buffer's size after
};

// Input at `in_offset` of a buffer of `buffer_size` bytes (alignment `align`), an
// output of `out_size` bytes allowed at in_offset + m * granule, min_m <= m <= max_m.
// Prefers no growth (smallest |m|), else the smallest grown buffer, and only a
// buffer smaller than buffer_size + out_size (else overlapping saves nothing).
OverlapChoice choose_overlap(uint64_t buffer_size, uint64_t in_offset, uint64_t out_size, int64_t granule,
                             int64_t min_m, int64_t max_m, uint32_t align, bool may_grow);

// Empty when every output that shares bytes with an input of its op is allowed to
// (an exact in-place input of its size, or a declared overlap at an allowed offset);
// otherwise the first violation, naming the op.
std::string check_overlaps(const BufferizedProgram& program);

}  // namespace kiln
