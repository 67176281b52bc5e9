// The bridge between bufferization and the planner: turns the program's buffers
// into planner BufferInfos (the planner knows nothing about ONNX), runs the chosen
// algorithm, checks the plan independently, and returns where every buffer lives.
#pragma once

#include <string>
#include <vector>

#include "bufferize/bufferize.h"
#include "emit/emitter.h"
#include "planner/planner.h"
#include "planner/pool_spec.h"

namespace kiln {

struct MemoryPlan {
  planner::PlanProblem problem;
  planner::Plan plan;
  std::vector<int> program_buffer;      // planner buffer index -> program buffer id
  std::vector<std::string> origins;     // planner buffer index -> producing op
  EmitPlan emit;                        // per program buffer: pool + offset
};

struct MemoryPlanOptions {
  std::vector<planner::Pool> pools;     // workspace and parameter pools, in priority order per kind
  std::vector<planner::PinRequest> pins;  // buffers restricted to some pools
  // --io-in-workspace: graph inputs and outputs are planned into the workspace
  // pools too (inputs live from step 0 to their last use, outputs from their
  // first write to the end of the run) instead of staying in caller buffers.
  bool io_in_workspace = false;
  planner::PlannerOptions planner;
};

// Throws CompileError when some buffer fits no pool (naming it), or for a pin naming no pool.
MemoryPlan plan_program_memory(const BufferizedProgram& program, const MemoryPlanOptions& options);

}  // namespace kiln
