// Memory planning under --memory-priority: how big the lowerings' scratch tiles
// are, searched against the workspace peak and the pools' capacities
// (docs/memory-planning.md, "Scratch under a budget"). It runs the lowering passes
// again (driver/pipeline.h, rerun_lowering_passes) with other memory choices in the
// LoweringTarget; it knows nothing of import, emission or flags.
//
//   speed  plan the program as it is (tiles sized for speed)
//   ram    the same; the pipeline ran with LoweringTarget::ram_priority
//   auto   first the lean-tile search: the convolutions whose im2col tile is live
//          at the peak take lean tiles, round after round while the peak moves to
//          another such convolution (at most four rounds), kept when the peak of
//          live bytes drops by at least a twentieth; then planning, and when the
//          plan does not fit the pools, RAM tiles everywhere and planning again
#pragma once

#include <string>

#include "driver/memory_plan.h"
#include "driver/pipeline.h"
#include "lower/lowering.h"

namespace kiln {

enum class MemoryPriority { Auto, Speed, Ram };

// --memory-priority's value; throws CompileError for anything but auto, speed, ram.
MemoryPriority parse_memory_priority(const std::string& text);

// The target a compilation's pipeline starts with: the features of `mcpu`
// (lowering_target_for_mcpu), RAM tiles when `priority` is Ram.
LoweringTarget initial_lowering_target(const std::string& mcpu, MemoryPriority priority);

struct TunedMemory {
  MemoryPlan plan;        // the plan of the program the state holds
  LoweringTarget target;  // the target that program was lowered for
  // What the tiles are sized for and why, and the largest scratch buffer (the
  // summary's and the report's "memory priority"), e.g. "speed, lean im2col tiles
  // in 3 convolution(s) at the peak (live peak 151552 -> 136192 B), largest scratch 18432 B".
  std::string note;
};

// Plans the memory of `state`, which run_pipeline took through `bufferize` with
// `options` (options.target from initial_lowering_target(..., priority)). Leaves
// in `state` the program (with its lowering, schedule and node order) of the plan
// returned. Throws CompileError when no plan fits the pools.
TunedMemory plan_memory_tuned(PipelineState& state, const PipelineOptions& options, MemoryPriority priority,
                              const MemoryPlanOptions& plan_options);

}  // namespace kiln
