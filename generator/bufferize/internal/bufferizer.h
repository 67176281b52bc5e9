// The bufferizer's working object (internal to bufferize/): it builds the
// BufferizedProgram op by op. `where_` maps every value computed so far to the
// buffer (and byte offset) that holds it; views map to their source's buffer. Its
// parts are one file per concern:
//   bufferize.cpp   the entry point, the analysis before the first op, one op's
//                   lowering (inputs, constants, outputs, scratch, guards, loop marks)
//   views.cpp       views and aliasing: view ops sharing their source's buffer, values
//                   placed into a Concat slice or an If's output (internal/views.h)
//   in_place.cpp    an output taking over (or partly overlapping) a dead input's
//                   buffer, a loop's next value written over its carried buffer
//   copies.cpp      every inserted copy: Concat inputs and If sides that could not be
//                   placed, loop-state swaps, graph outputs that need their own buffer
//   liveness.cpp    values' last uses and buffers' live intervals (internal/liveness.h)
//   state.cpp       state kept between runs: its buffer, its end value computed into
//                   it or copied there after the last operator
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "bufferize/branch_guards.h"
#include "bufferize/bufferize.h"
#include "bufferize/internal/views.h"

namespace kiln::bufferize_internal {

class Bufferizer {
 public:
  Bufferizer(const Graph& g, const LoweredGraph& lowered, const BufferizeOptions& o)
      : g_(g), opt_(o), calls_(lowered.calls) {}

  BufferizedProgram run();

 private:
  // ---- bufferize.cpp
  int new_buffer(const std::string& name, BufferKind kind, uint64_t size, const std::string& origin);
  void bind(const Value* v, BufferRef r);
  BufferRef ref_of(const Value* v, const Node& user);
  void analyse();
  void lower(const Node& n);
  void lower_inputs(const Node& n, const KernelCall& call, ScheduledOp& op);
  void lower_outputs(const Node& n, KernelCall& call, ScheduledOp& op);
  void lower_scratch_guards_and_loop(const Node& n, const KernelCall& call, ScheduledOp& op);
  int claim_output_buffer(const Value* v);
  int group_of(const Value* cond);
  std::vector<OpGuard> guards_of(const Node& n);

  // ---- views.cpp
  bool lower_view(const Node& n, const KernelCall& call, ScheduledOp& op);
  BufferRef placed_ref(const Value* v);

  // ---- in_place.cpp
  bool dies_at(BufferRef r, int64_t now, const ScheduledOp& op);
  BufferRef in_place_source(const Node& n, const KernelCall& call, const ScheduledOp& op, const Value* out);
  BufferRef overlap_source(const Node& n, KernelCall& call, ScheduledOp& op, const Value* out);
  void shift_buffer(int b, uint64_t shift, ScheduledOp& current);
  BufferRef carried_state_slot(const Node& n, const Value* v);

  // ---- copies.cpp
  void push_copy(const Node& n, const std::string& label, BufferRef src, BufferRef dst, const Value* v);
  void lower_placed_concat(const Node& n, const KernelCall& call, const ScheduledOp& op);
  void lower_placed_select(const Node& n, const ScheduledOp& op);
  void lower_loop_end(const Node& n, ScheduledOp& op);
  void bind_outputs();

  // ---- state.cpp
  int state_buffer(const StateVariable& s);
  void find_state_feeds();
  BufferRef state_slot(const Node& n, const KernelCall& call, const ScheduledOp& op, const Value* v);
  void write_back_states();

  const Graph& g_;
  BufferizeOptions opt_;
  BufferizedProgram prog_;
  std::map<const Value*, BufferRef> where_;
  std::map<int, std::vector<const Value*>> holders_;  // buffer -> every value bound to it
  std::map<const Node*, int64_t> step_of_;            // node -> its index in the schedule
  std::map<const Node*, KernelCall> calls_;
  std::map<const Value*, int64_t> last_use_;          // schedule index of the last user
  std::map<const Node*, std::vector<BranchGuard>> guards_;  // ops of one side of a run-time If
  std::map<const Value*, int> cond_group_;                  // run-time If condition -> OpGuard::group
  Placements placements_;                                   // Concat slices and If outputs (views.h)
  std::set<const Value*> feeds_output_;  // a graph output is a view of these
  std::set<int> claimed_;
  std::map<const Value*, const StateVariable*> state_feeds_;  // a state's end value is a whole view of these
  std::map<const Node*, const Node*> loop_begin_of_end_, loop_end_of_begin_;
  std::map<const Node*, int64_t> region_of_;  // ir/loop_region.h: the innermost region of each node
};

}  // namespace kiln::bufferize_internal
