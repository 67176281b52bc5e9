#include "driver/memory_tuning.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "planner/dsa_search.h"
#include "schedule/graph_schedule.h"
#include "util/error.h"
#include "util/progress.h"
#include "util/quoted.h"

namespace kiln {

namespace {

// Rounds of the lean-tile search: each gives lean tiles to the convolutions at the
// new peak, so the peak may move to another one.
constexpr int kLeanRounds = 4;

// What the lowering passes produced for one target, kept so that going back to it
// needs no second run of the passes (bufferizing with the overlap choice is most
// of a compile).
struct LoweringSnapshot {
  LoweringTarget target;
  LoweredGraph lowered;
  ScheduleReport schedule;
  BufferizedProgram program;
  std::vector<const Node*> order;  // the schedule pass reorders the graph's nodes
};

LoweringSnapshot snapshot(const PipelineState& s, const LoweringTarget& target) {
  return {target, s.lowered, s.schedule, s.program, node_order(*s.graph)};
}

void restore(PipelineState& s, LoweringSnapshot& snap) {
  set_node_order(*s.graph, snap.order);
  s.lowered = std::move(snap.lowered);
  s.schedule = std::move(snap.schedule);
  s.program = std::move(snap.program);
}

struct LeanChoice {
  LoweringTarget target;
  std::string note;  // empty when no lean tile was kept
};

// --memory-priority auto, before planning: lean im2col tiles (a quarter of an output
// row) for the convolutions whose scratch is live at the peak, round after round
// while the peak moves to another such convolution; kept when the peak of live
// bytes drops by at least a twentieth, the point where the extra tiles' instructions
// buy enough RAM. Leaves `state` holding the program of the target returned.
LeanChoice choose_lean_tiles(PipelineState& state, const PipelineOptions& options) {
  const uint64_t speed_peak = live_peak(state.program);
  LoweringSnapshot speed = snapshot(state, options.target);
  PipelineOptions lean = options;  // lean.target.lean_tiles grows round by round
  std::optional<LoweringSnapshot> best;
  uint64_t peak = speed_peak;
  bool current_is_best = true;
  for (int round = 0; round < kLeanRounds; ++round) {
    bool added = false;
    for (const Node* n : scratch_ops_at_peak(state.program)) added = lean.target.lean_tiles.insert(n).second || added;
    if (!added) break;
    rerun_lowering_passes(state, lean);
    const uint64_t now = live_peak(state.program);
    current_is_best = now < peak;
    if (!current_is_best) break;
    peak = now;
    best = snapshot(state, lean.target);
  }
  if (best && peak * 20 <= speed_peak * 19) {
    LeanChoice chosen{best->target, ""};
    if (!current_is_best) restore(state, *best);
    chosen.note = ", lean im2col tiles in " + std::to_string(chosen.target.lean_tiles.size()) +
                  " convolution(s) at the peak (live peak " + std::to_string(speed_peak) + " -> " +
                  std::to_string(live_peak(state.program)) + " B)";
    return chosen;
  }
  if (!lean.target.lean_tiles.empty()) restore(state, speed);
  return {options.target, ""};
}

uint64_t largest_scratch(const BufferizedProgram& program) {
  uint64_t bytes = 0;
  for (const Buffer& b : program.buffers)
    if (b.kind == BufferKind::Scratch) bytes = std::max(bytes, b.size_bytes);
  return bytes;
}

}  // namespace

MemoryPriority parse_memory_priority(const std::string& text) {
  if (text == "auto") return MemoryPriority::Auto;
  if (text == "speed") return MemoryPriority::Speed;
  if (text == "ram") return MemoryPriority::Ram;
  throw CompileError("--memory-priority " + in_quotes(text) + " is not one of auto, speed, ram");
}

LoweringTarget initial_lowering_target(const std::string& mcpu, MemoryPriority priority) {
  LoweringTarget target = lowering_target_for_mcpu(mcpu);
  target.ram_priority = priority == MemoryPriority::Ram;
  return target;
}

TunedMemory plan_memory_tuned(PipelineState& state, const PipelineOptions& options, MemoryPriority priority,
                              const MemoryPlanOptions& plan_options) {
  TunedMemory tuned;
  tuned.target = options.target;
  std::string lean_note;
  if (priority == MemoryPriority::Auto) {
    LeanChoice lean = choose_lean_tiles(state, options);
    tuned.target = std::move(lean.target);
    lean_note = std::move(lean.note);
  }
  std::string why = tuned.target.ram_priority ? "ram (--memory-priority ram)" : "speed";
  // --memory-priority auto: when the plan with speed tiles does not fit the pools'
  // capacities, lowered again with tiles for RAM (the passes from `lower` on).
  for (;;) {
    progress_stage("planning memory (" + std::to_string(state.program.buffers.size()) + " buffers)");
    planner::set_search_progress_hook(&progress_fraction);  // the exact search's share of its budget
    try {
      tuned.plan = plan_program_memory(state.program, plan_options);
      break;
    } catch (const CompileError& e) {
      if (priority != MemoryPriority::Auto || tuned.target.ram_priority) throw;
      why = "ram (the plan with speed tiles did not fit: " + std::string(e.what()) + ")";
      tuned.target.ram_priority = true;
      lean_note.clear();
      PipelineOptions ram = options;
      ram.target = tuned.target;
      rerun_lowering_passes(state, ram);
    }
  }
  tuned.note = why + lean_note + ", largest scratch " + std::to_string(largest_scratch(state.program)) + " B";
  return tuned;
}

}  // namespace kiln
