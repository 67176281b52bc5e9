// Bufferization: values -> buffers.
//
// Loop regions (ir/loop_region.h) run their ops once per iteration: a value of the
// enclosing graph read inside a region stays live (and is never overwritten in
// place) until the region's end, a scan output is live from the region's start,
// and a loop-carried value the body passes on unchanged from another carried value
// goes through a copy so the End's copies never read what they have just written,
// while a next value whose carried buffer no later op of the iteration reads is
// computed straight into it.
//
// Every value an operator reads or writes gets a buffer reference. View ops
// (lowered with KernelCall::alias_input) share their input's buffer; a graph
// output's producer writes straight into the caller's output buffer; graph inputs
// are never written. Copies are inserted only where aliasing would be wrong (an
// output that is a graph input, a constant, or a value returned twice), and each is
// listed in `copies`. A state's start value and end value (ir/graph.h,
// StateVariable) share one State buffer: the end value is computed straight into
// it when every read of the start value comes before (or, in place, at) its
// producer, else copied there after the last operator. The result is the schedule
// the planner and emitter work from.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "lower/lowering.h"

namespace kiln {

// State: a StateVariable's bytes (ir/graph.h), kept between runs: live for the
// whole run, never reused by anything else, filled by kiln_<module>_reset().
enum class BufferKind { Activation, Scratch, Input, Output, Constant, State };

struct Buffer {
  int id = 0;
  std::string name;
  BufferKind kind = BufferKind::Activation;
  uint64_t size_bytes = 0;
  uint32_t alignment = 16;
  int64_t first = 0;  // live interval [first, last) in schedule steps
  int64_t last = 0;
  std::string origin;        // producing op ("Conv 'conv1'"), or "graph input" / "initializer"
  int io_index = -1;         // index in graph inputs/outputs for Input/Output buffers, in Graph::states for State
  ConstantPtr constant;      // for Constant buffers; a State buffer's value after reset
  // (OpGuard::group, when) pairs that hold for every op touching this buffer
  // (reading, writing, or testing it as a condition): no run with that condition
  // the other way uses it, so the planner may share its bytes with such a run's
  // buffers (planner::ExclusiveTag). Activations and scratch only.
  std::vector<std::pair<int, bool>> only_when;
};

struct BufferRef {
  int buffer = -1;       // -1: absent (omitted optional input)
  uint64_t offset = 0;   // byte offset inside the buffer
};

// A run-time If's condition an op runs under (bufferize/branch_guards.h): the op
// runs only when the bool at `cond` equals `when`.
struct OpGuard {
  BufferRef cond;
  bool when = true;
  int group = 0;  // one number per condition value, the same in every op it guards
};

// A Loop region's markers (ir/loop_region.h): the emitter opens the C loop at the
// Begin op and closes it at the End op; the ops between them are the body.
enum class LoopMark { None, Begin, End };

struct ScheduledOp {
  const Node* node = nullptr;  // null for a copy the bufferizer inserted
  LoopMark loop = LoopMark::None;  // inputs/outputs as the KilnLoopBegin / KilnLoopEnd node's
  std::vector<OpGuard> guards;  // all must hold for the op to run; empty: always runs
  std::string label;           // "Conv 'conv1'" or "copy to output 'y'"
  KernelCall call;
  std::vector<BufferRef> inputs, outputs, scratch, constants;  // constants: KernelCall::constants
  std::vector<DType> input_dtypes, output_dtypes;
};

struct BufferizedProgram {
  std::vector<Buffer> buffers;
  std::vector<ScheduledOp> ops;  // step i = ops[i]
  std::vector<std::string> copies;  // why each inserted copy was needed
  std::vector<std::string> overlaps;  // each output placed across its input's bytes (bufferize/overlap.h)
  std::vector<const Node*> overlap_nodes;  // the op of each entry of `overlaps`
};

struct BufferizeOptions {
  uint32_t activation_alignment = 16;
  bool alias_views = true;  // off: every view op becomes a copy (for measurements)
  bool in_place = true;     // element-wise ops may overwrite an input they are the last user of
  bool overlap = true;      // outputs may start inside a dying input's bytes (KernelCall::overlaps)
  std::set<const Node*> no_overlap;  // ops that may not (schedule/overlap_choice.h decides)
};

// Assigns buffers to the lowered graph (`lowered`: lower_graph(g), lower/lowering.h).
// Throws CompileError.
BufferizedProgram bufferize(const Graph& g, const LoweredGraph& lowered, const BufferizeOptions& options = {});

const char* buffer_kind_name(BufferKind k);

}  // namespace kiln
