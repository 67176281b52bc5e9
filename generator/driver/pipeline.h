// Kiln's passes after import, listed once. `kiln compile` (driver/compile.h), `kiln
// inspect`, `kiln verify`, the fuzz targets and the benchmarks all run this list,
// or a prefix of it; none assembles passes of its own.
//
//   settle     fold & simplify, resolve sequences, decide control flow, infer shapes:
//              a fixed point (settle_graph below)
//   check      every sequence resolved, constant indices in range, static shapes
//   quantize   QDQ groups -> integer ops (quant/qdq_rewrite.h), unless --float-qdq
//   fuse       Conv -> Add residuals into one op (schedule/residual_fusion.h), with overlap on
//   lower      every node -> one kernel call (lower/lowering.h)
//   schedule   the operator order of least memory peak (schedule/graph_schedule.h)
//   bufferize  values -> buffers (bufferize/bufferize.h), the partial reuses that pay
//              kept (schedule/overlap_choice.h) and checked (bufferize/overlap.h)
//
// Memory planning and emission follow in driver/compile.cpp (they need the pools and
// the output folder).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bufferize/bufferize.h"
#include "fold/fold.h"
#include "ir/graph.h"
#include "lower/lowering.h"
#include "quant/qdq_rewrite.h"
#include "schedule/graph_schedule.h"

namespace kiln {

// True in a debug build, or when the environment has KILN_VERIFY_GRAPH=1.
bool verify_graph_by_default();

struct PipelineOptions {
  bool fold = true;              // --no-fold: the settle pass only infers shapes, resolves, decides
  FoldOptions fold_options;
  bool integer_quantized = true;  // --float-qdq turns the quantize pass off
  BufferizeOptions bufferize;    // .overlap also turns the fuse pass on
  std::string schedule = "auto";  // --schedule
  // Check the graph's invariants (ir/verify_graph.h) after import and after every
  // pass: --verify-graph, and by default in debug builds and wherever
  // KILN_VERIFY_GRAPH=1 is set (make test sets it for every test).
  bool verify_graph = verify_graph_by_default();
};

// What the passes produce, in pipeline order.
struct PipelineState {
  Graph* graph = nullptr;  // the imported graph, rewritten in place
  FoldReport fold_report;  // all rounds of the settle pass
  quant::QdqReport quant_report;
  LoweredGraph lowered;
  ScheduleReport schedule;
  BufferizedProgram program;
  // The programs the schedule pass bufferized to measure orders, with the node order
  // of each: the bufferize pass takes the one of the order chosen instead of
  // bufferizing (and choosing overlaps) again, then clears this.
  std::vector<std::pair<std::vector<const Node*>, BufferizedProgram>> measured_orders;
};

struct Pass {
  std::string name;      // "settle", "check", "quantize", "fuse", "lower", "schedule", "bufferize"
  std::string progress;  // what the progress line says while it runs
  std::function<void(PipelineState&, const PipelineOptions&)> run;
};

// The passes, in order.
const std::vector<Pass>& pipeline_passes();

// Runs one pass, then (options.verify_graph) checks the graph it leaves.
void run_pass(const Pass& pass, PipelineState& state, const PipelineOptions& options);

// Runs the passes in order, through the one named `last` (empty: all of them).
// `after`, when given, sees the state after each pass. Throws CompileError.
void run_pipeline(PipelineState& state, const PipelineOptions& options, const std::string& last = "",
                  const std::function<void(const Pass&, const PipelineState&)>& after = {});

// The settle pass: constant folding (when `fold`), sequence resolution, the decision
// of control flow and shape inference alternate until nothing changes; an If still
// undecided then runs both branches, and a sequence position still computed at run
// time becomes a run-time table. Returns the folding report of all rounds.
FoldReport settle_graph(Graph& graph, bool fold, const FoldOptions& fold_options);

// The QDQ rewrite's view of this build's lowerings: which integer ops have a
// kernel, and whether a lowering takes an op's parameters.
quant::QdqOptions qdq_options_from_lowerings();

}  // namespace kiln
