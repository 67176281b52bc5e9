// Which partial reuses to keep. The bufferizer places an output across a dying
// input whenever the kernel allows (bufferize/overlap.h); that can backfire: a small
// output that lives long keeps the whole (maybe grown) buffer of its input alive.
// bufferize_choosing_overlaps bufferizes, then tries switching each overlap off in
// turn and keeps the switch when the peak of live bytes (then their sum over the
// schedule) goes down.
#pragma once

#include "bufferize/bufferize.h"

namespace kiln {

BufferizedProgram bufferize_choosing_overlaps(const Graph& g, const LoweredGraph& lowered, BufferizeOptions options);

}  // namespace kiln
