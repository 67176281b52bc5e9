#include "driver/pipeline.h"

#include <algorithm>
#include <cstdlib>

#include "bufferize/overlap.h"
#include "controlflow/control_flow.h"
#include "ir/verify_graph.h"
#include "onnx/node_shape_inference.h"
#include "onnx/node_validation.h"
#include "schedule/overlap_choice.h"
#include "schedule/patch_fusion.h"
#include "schedule/residual_fusion.h"
#include "sequence/resolve_sequences.h"
#include "sequence/runtime_sequences.h"
#include "util/error.h"
#include "util/fault_guard.h"
#include "util/progress.h"

namespace kiln {

namespace {

// Folding runs more than once (settle_graph); the report covers all rounds.
void fold_report_accumulate(FoldReport& total, const FoldReport& r) {
  total.nodes_after = r.nodes_after;
  total.constant_bytes_after = r.constant_bytes_after;
  for (const auto& [k, v] : r.folded) total.folded[k] += v;
  for (const auto& [k, v] : r.rewritten) total.rewritten[k] += v;
  for (const auto& n : r.skipped_by_size_limit)  // a node skipped once is skipped again in later rounds
    if (std::find(total.skipped_by_size_limit.begin(), total.skipped_by_size_limit.end(), n) ==
        total.skipped_by_size_limit.end())
      total.skipped_by_size_limit.push_back(n);
  total.rewrite_cap_reached |= r.rewrite_cap_reached;
  total.seconds += r.seconds;
}

void check_pass(PipelineState& s, const PipelineOptions& o) {
  require_sequences_resolved(*s.graph);
  check_constant_indices(*s.graph);
  try {
    require_static_shapes(*s.graph);
  } catch (const CompileError& e) {
    if (o.fold) throw;
    throw CompileError(std::string(e.what()) + "; note: --no-fold is set, and shapes computed by the model " +
                       "(Shape -> Gather -> Concat -> Reshape chains) are only known after folding");
  }
}

}  // namespace

FoldReport settle_graph(Graph& graph, bool fold, const FoldOptions& options, const LoweringTarget& target) {
  FoldOptions fold_options = options;
  if (!fold_options.infer_shapes) fold_options.infer_shapes = infer_node_shapes;
  ControlFlowOptions control_flow;
  control_flow.infer_shapes = infer_node_shapes;
  // A Loop body's node must have a kernel that reads what the loop computes at run
  // time (a Reshape to a shape computed from the iteration number has none). Only a
  // lowering's refusal (CompileError) is a reason to unroll; an internal error of a
  // lowering stays an internal error instead of quietly changing the plan.
  control_flow.runtime_refusal = [&target](const Node& n) -> std::string {
    for (const Value* v : n.inputs)
      if (v && !v->shape_known) return "";  // decided once folding knows the shapes
    return can_lower(n, target).value_or("");
  };
  // Control flow the model's own constants decide: Loop and Scan unrolled, an If on
  // a constant condition replaced by its branch (controlflow/control_flow.h).
  lower_control_flow(graph, false, control_flow);
  FoldReport fold_report;
  // Values whose shape depends on a computed constant get their shape once folding
  // has computed it; that may unlock more folding (a Shape of the new value), or
  // decide an If, so these alternate until nothing changes. Each round resolves at
  // least one node, so this ends after at most as many rounds as there are nodes.
  for (size_t round = 0;; ++round) {
    if (fold) {
      FoldReport r = fold_and_simplify(graph, fold_options);
      if (round == 0) fold_report = r;
      else fold_report_accumulate(fold_report, r);
    }
    // Sequence ops are resolved as soon as their positions are folded to constants
    // (sequence/resolve_sequences.h); the elements they expose may unlock more.
    const size_t sequences = resolve_sequences(graph);
    // Control flow: an If whose condition folding made constant becomes its taken branch.
    const size_t decided = lower_control_flow(graph, false, control_flow);
    if (infer_unknown_shapes(graph) == 0 && sequences == 0 && decided == 0) {
      // Settled: an If still undecided runs both branches (and may unlock more); a
      // position still computed at run time makes its sequence a run-time table
      // (sequence/runtime_sequences.h); the rest resolves as above.
      if (lower_control_flow(graph, true, control_flow) > 0) continue;
      if (resolve_runtime_positions(graph) == 0) break;
    }
  }
  return fold_report;
}

quant::QdqOptions qdq_options_from_lowerings(const LoweringTarget& target) {
  quant::QdqOptions qo;
  qo.has_kernel = [](const std::string& op) { return has_lowering(op); };
  qo.refuses = [target](const Node& n) { return can_lower(n, target); };
  return qo;
}

const std::vector<Pass>& pipeline_passes() {
  static const std::vector<Pass> passes = {
      {PassId::Settle, "settle", "folding constants and inferring shapes",
       [](PipelineState& s, const PipelineOptions& o) {
         s.fold_report = settle_graph(*s.graph, o.fold, o.fold_options, o.target);
       }},
      {PassId::Check, "check", "checking shapes", check_pass},
      // Quantized (QDQ) groups become integer ops, after folding (which leaves
      // DequantizeLinear of constant weights alone, so the weights stay int8).
      {PassId::Quantize, "quantize", "rewriting quantized groups to integer ops",
       [](PipelineState& s, const PipelineOptions& o) {
         if (o.integer_quantized)
           s.quant_report = quant::rewrite_quantized_graph(*s.graph, qdq_options_from_lowerings(o.target));
       }},
      // Memory (docs/memory-planning.md): a Conv whose result only feeds an Add
      // becomes one op that may write over the Add's other input.
      {PassId::Fuse, "fuse", "fusing residual blocks",
       [](PipelineState& s, const PipelineOptions& o) {
         if (!o.bufferize.overlap) return;
         // Patch-based execution of the inverted residual blocks that set the peak
         // (before residual fusion, which would take their projections).
         fuse_inverted_residuals(*s.graph, o.target.ram_priority);
         fuse_residual_adds(*s.graph);
       }},
      {PassId::Lower, "lower", "lowering",
       [](PipelineState& s, const PipelineOptions& o) { s.lowered = lower_graph(*s.graph, o.target); }},
      {PassId::Schedule, "schedule", "scheduling operators",
       [](PipelineState& s, const PipelineOptions& o) {
         s.measured_orders.clear();
         s.schedule = schedule_graph(*s.graph, o.schedule, s.lowered, o.bufferize.activation_alignment,
                                    [&](const Graph& g) {
           BufferizedProgram p = bufferize_choosing_overlaps(g, s.lowered, o.bufferize);
           const uint64_t peak = live_peak(p);
           s.measured_orders.emplace_back(node_order(g), std::move(p));
           return peak;
         });
       }},
      {PassId::Bufferize, "bufferize", "bufferizing",
       [](PipelineState& s, const PipelineOptions& o) {
         const std::vector<const Node*> order = node_order(*s.graph);
         auto measured = std::find_if(s.measured_orders.begin(), s.measured_orders.end(),
                                      [&](const auto& m) { return m.first == order; });
         s.program = measured != s.measured_orders.end() ? std::move(measured->second)
                                                         : bufferize_choosing_overlaps(*s.graph, s.lowered, o.bufferize);
         s.measured_orders.clear();
         if (std::string bad = check_overlaps(s.program); !bad.empty())
           throw std::logic_error("the bufferized program failed the overlap check: " + bad);
       }},
  };
  return passes;
}

bool verify_graph_by_default() {
#ifndef NDEBUG
  return true;
#else
  const char* env = std::getenv("KILN_VERIFY_GRAPH");
  return env && std::string(env) == "1";
#endif
}

namespace {

// The passes from `first` through `last`, each followed by the graph check.
void run_passes(PipelineState& state, const PipelineOptions& options, PassId first, PassId last,
                const std::function<void(const Pass&, const PipelineState&)>& after) {
  for (const Pass& p : pipeline_passes()) {
    if (p.id < first) continue;
    progress_stage(p.id == PassId::Settle && !options.fold ? "inferring shapes" : p.progress);
    {
      FaultScope scope("the pipeline's '" + p.name + "' pass");
      p.run(state, options);
      if (options.verify_graph) verify_graph(*state.graph, "the '" + p.name + "' pass");
    }
    if (after) after(p, state);
    if (p.id == last) break;
  }
}

}  // namespace

void run_pipeline(PipelineState& state, const PipelineOptions& options, PassId last,
                  const std::function<void(const Pass&, const PipelineState&)>& after) {
  if (options.verify_graph) verify_graph(*state.graph, "import");
  run_passes(state, options, PassId::Settle, last, after);
}

void rerun_lowering_passes(PipelineState& state, const PipelineOptions& options) {
  run_passes(state, options, PassId::Lower, PassId::Bufferize, {});
}

}  // namespace kiln
