// Kiln's passes after import, listed once. `kiln compile` (driver/compile.h), `kiln
// inspect`, `kiln verify`, the fuzz targets and the benchmarks all run this list,
// or a prefix of it; none assembles passes of its own.
//
//   settle     fold & simplify, resolve sequences, decide control flow, infer shapes:
//              a fixed point (settle_graph below)
//   check      every sequence resolved, constant indices in range, static shapes
//   quantize   QDQ groups -> integer ops (quant/qdq_rewrite.h), unless --float-qdq
//   fuse       Conv -> Add residuals into one op (schedule/residual_fusion.h), with overlap on
//   lower      every node -> one kernel call (lower/lowering.h) for PipelineOptions::target
//   schedule   the operator order of least memory peak (schedule/graph_schedule.h)
//   bufferize  values -> buffers (bufferize/bufferize.h), the partial reuses that pay
//              kept (schedule/overlap_choice.h) and checked (bufferize/overlap.h)
//
// The passes are named by PassId, never by their text. The first four rewrite the
// graph; from `lower` on they turn it into a program for one LoweringTarget, and
// only they run again when the memory choices change (rerun_lowering_passes,
// driver/memory_tuning.h). Memory planning and emission follow in
// driver/compile.cpp (they need the pools and the output folder).
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
  // The CPU's features and the memory choices every lowering sees (lower/lowering.h);
  // the settle and quantize passes ask the lowerings about nodes for it, the fuse
  // pass reads its RAM priority. Default: no target features, speed tiles.
  LoweringTarget target;
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

// The passes, in pipeline order.
enum class PassId { Settle, Check, Quantize, Fuse, Lower, Schedule, Bufferize };

struct Pass {
  PassId id;
  std::string name;      // for people: kiln inspect, a --verify-graph failure, the progress line
  std::string progress;  // what the progress line says while it runs
  void (*run)(PipelineState&, const PipelineOptions&);
};

// The passes, in order (pipeline_passes()[i].id == PassId(i)).
const std::vector<Pass>& pipeline_passes();

// Runs the passes in order, from the first through `last`, each followed by the
// graph check when options.verify_graph. `after`, when given, sees the state after
// each pass. Throws CompileError.
void run_pipeline(PipelineState& state, const PipelineOptions& options, PassId last = PassId::Bufferize,
                  const std::function<void(const Pass&, const PipelineState&)>& after = {});

// Runs the passes from `lower` through `bufferize` again on a state run_pipeline
// took through `bufferize`, for options.target (e.g. other memory choices): the
// graph passes before them are not rerun. The node order is the one the last
// schedule pass left.
void rerun_lowering_passes(PipelineState& state, const PipelineOptions& options);

// The settle pass: constant folding (when `fold`), sequence resolution, the decision
// of control flow and shape inference alternate until nothing changes; an If still
// undecided then runs both branches, and a sequence position still computed at run
// time becomes a run-time table. Returns the folding report of all rounds.
// `target`: a Loop whose body has a node no lowering for it takes is unrolled (can_lower).
FoldReport settle_graph(Graph& graph, bool fold, const FoldOptions& fold_options, const LoweringTarget& target);

// The QDQ rewrite's view of this build's lowerings for `target`: which integer ops
// have a kernel, and whether a lowering takes an op's parameters (can_lower).
quant::QdqOptions qdq_options_from_lowerings(const LoweringTarget& target);

}  // namespace kiln
