// Control-flow lowering: If, Scan and Loop nodes, whose branches and bodies are IR
// subgraphs (ir/graph.h, GraphPtr attributes; onnx/graph_conversion.h builds them),
// become ordinary nodes of the enclosing graph.
//
// Kiln plans memory for one static schedule, so a node carrying subgraphs is not
// kept: its subgraph(s) are instantiated as plain nodes with fresh value names, and
// small internal nodes connect them:
//   If    a condition known at compile time (a constant, seen through Identity)
//         takes its branch alone: the dead branch's shapes never matter, the If's
//         outputs get the taken branch's static shapes (graph outputs too). An If on
//         run-time data waits: the pipeline's settle pass (driver/pipeline.h) runs
//         this pass inside its fixed point, after folding and shape inference, so a
//         condition folding makes constant decides the If. Once the graph has settled
//         (`undecided_too`), an If still on run-time data instantiates both branches
//         and one `KilnSelect` node per output (both must have the same static shape);
//         bufferize/branch_guards.h then runs each branch's ops only when taken.
//   Scan  the body is unrolled once per step of the (static) scanned axis; a
//         `KilnTakeSlice` node feeds each step its slice, Reshape + Concat stack the
//         scan outputs, Identity passes the final state out.
//   Loop  a loop region (ir/loop_region.h): KilnLoopBegin, the body instantiated
//         once, KilnLoopEnd; the emitter writes a C `for` loop around the body and
//         the planner plans its buffers once. The trip count may be a constant, a
//         value folding computes or run-time data, the condition and the body's
//         cond_out run-time data; scan outputs have M rows (M a constant and no
//         early stop) or the model's declared static length, checked by the run.
//         A Loop is unrolled instead (Graph::lowering_notes says which and why)
//         when it carries or returns a sequence, its body holds sequence ops,
//         it runs at most once, or a value computed from the
//         iteration number, cond_in or a carried value has no static shape or no
//         run-time form (ControlFlowOptions::runtime_refusal) when the body is
//         instantiated on the side with those unknown; or with
//         ControlFlowOptions::unroll_loops. Unrolled:
//         the body is unrolled a static number of times, iteration_num a constant
//         per step. The trip count M must be known at compile time (an initializer,
//         a Constant, an expression of them evaluated here with eval/, or a value
//         folding computes, e.g. Shape(x)[0] with --input-shape), unless the
//         model declares the scan outputs with a static length, which then fixes the
//         number of steps. A run-time "still active" bool (cond && t < M && every
//         earlier cond_out) drives one `KilnSelect` per loop-carried value and step,
//         so the state freezes exactly where the loop would stop. Scan outputs
//         (Reshape + Concat) need a static length: when the loop might stop early or
//         M is a run-time value, every output goes through a `KilnGuard` that fails
//         the run (KILN_ERR_BAD_ARGUMENT) unless the loop ran exactly the declared
//         number of iterations. Unrolling is capped at kMaxGraphNodes nodes per Loop.
// Scan is unrolled the first time the pass sees it. A Loop is unrolled once its
// trip count and condition are compile-time values (or it carries sequences);
// until then it waits like an undecided If, so folding can settle them (M =
// Shape(x)[0] with --input-shape), and with `undecided_too` it is unrolled as it
// stands. A KilnSelect whose condition has become a constant turns into an
// Identity of the chosen value (counted in the return value). Control flow
// nested in a body is lowered when the body is instantiated (a nested If on
// run-time data, or a nested Loop still waiting, stays a node of the enclosing
// graph until decided). Sequence-typed subgraph values stay sequence
// values (resolved later by sequence/resolve_sequences.h): an If over sequences
// gives one KilnSelect of the two lists; a Loop may carry a sequence when it never
// stops early and M is static (a constant, or SequenceLength of a sequence whose
// length is known), else the compile fails naming the Loop.
// KilnSelect / KilnTakeSlice / KilnGuard are default-domain op types no ONNX model
// can contain (the checker rejects unknown ops); they are lowered in
// lower/ops/control_flow.cpp.
// The implementation is one file per job: controlflow/flattener.h lists them
// (If lowering, Scan unrolling, Loop as a C loop, Loop unrolling, body instances,
// compile-time queries); control_flow.cpp is this pass's loop over the graph.
#pragma once

#include <cstddef>
#include <functional>

#include "ir/graph.h"

namespace kiln {

struct ControlFlowOptions {
  // Per-node shape inference for instantiated body nodes whose output shape is
  // open (the pipeline passes onnx/node_shape_inference.h's); empty: none.
  std::function<bool(Node&)> infer_shapes;
  // Whether a node computed from a Loop's iteration number, condition or carried
  // values can run on them as run-time data: "" when it can, else why not (the
  // pipeline asks the node's lowering). Empty: every node can.
  std::function<std::string(const Node&)> runtime_refusal;
  // Every Loop unrolled, none kept as a region (tests, measurements).
  bool unroll_loops = false;
};

// Lowers every If / Scan / Loop node of `graph` it can (see above), in schedule
// order; the new nodes take the place of the node they replace. Returns how many
// nodes it replaced. Throws CompileError naming the node for what cannot be static.
size_t lower_control_flow(Graph& graph, bool undecided_too, const ControlFlowOptions& options);

}  // namespace kiln
