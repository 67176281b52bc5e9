// Liveness: when each value is last read, and each buffer's live interval
// [first, last) in schedule steps once the program is built, with loop regions
// (ir/loop_region.h) stretching what an iteration reads again, and the run-time If
// sides (Buffer::only_when) every op touching a buffer runs under.
#pragma once

#include <cstdint>
#include <map>

#include "bufferize/bufferize.h"

namespace kiln::bufferize_internal {

// The schedule step of each value's last reader (`step_of`: node -> its step; -1:
// never read, INT64 max: a graph output). A value computed before a loop region and
// read inside it is read again by every iteration, so it lives until the region's
// End (of the outermost region it is read in).
std::map<const Value*, int64_t> value_last_uses(const Graph& g, const std::map<const Node*, int64_t>& step_of);

// Sets every buffer's `first`, `last` and `only_when` from the program's ops. A
// scan output (an End output written every iteration) lives from its region's
// start; caller-owned and constant memory for the whole run.
void compute_buffer_liveness(BufferizedProgram& prog);

}  // namespace kiln::bufferize_internal
