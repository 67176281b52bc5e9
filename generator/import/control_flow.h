// Flattening of ONNX control flow at import (If, Scan, Loop).
//
// Kiln plans memory for one static schedule, so a node carrying subgraphs (GraphProto
// attributes) is not kept as a node: its subgraph(s) are imported as ordinary nodes
// of the enclosing graph, with fresh value names, and small internal nodes connect
// them:
//   If    a condition known at import (a constant) takes its branch alone. Else the
//         If stays one node (branches serialized, the outer values they read as
//         extra inputs) until the driver's fold / shape-inference loop decides it
//         (expand_deferred_ifs): a condition folded to a constant takes its branch
//         alone (the dead branch's shapes never matter); one still computed at run
//         time once the graph has settled imports both branches, and one
//         `KilnSelect` node per output copies the branch the condition picks (both
//         are computed; both must have the same static shape).
//   Scan  the body is unrolled once per step of the (static) scanned axis; a
//         `KilnTakeSlice` node feeds each step its slice, Reshape + Concat stack the
//         scan outputs, Identity passes the final state out.
//   Loop  the body is unrolled a static number of times, iteration_num a constant
//         per step. The trip count M must be known at compile time (an initializer,
//         a Constant, or an expression of them evaluated here with the folder's
//         evaluators), unless the model declares the scan outputs with a static
//         length, which then fixes the number of steps. A run-time "still active"
//         bool (cond && t < M && every earlier cond_out) drives one `KilnSelect` per
//         loop-carried value and step, so the state freezes exactly where the loop
//         would stop. Scan outputs (Reshape + Concat) need a static length: when
//         the loop might stop early or M is a run-time value, every output goes
//         through a `KilnGuard` that fails the run (KILN_ERR_BAD_ARGUMENT) unless
//         the loop ran exactly the declared number of iterations. Unrolling is
//         capped at kMaxUnrolledLoopNodes nodes per Loop.
// Sequence-typed subgraph values stay sequence values (resolved later by
// sequence/resolve_sequences.h): an If over sequences gives one KilnSelect of the
// two lists (split per element by that pass); a Loop may carry a sequence when it
// never stops early and M is static (a constant, or SequenceLength of a sequence
// whose length import knows), else the compile fails naming the Loop.
// KilnSelect / KilnTakeSlice / KilnGuard are default-domain op types no ONNX model
// can contain (the checker rejects unknown ops); they are lowered in
// lower/ops/control_flow.cpp.
#pragma once

#include <onnx/onnx_pb.h>

#include <filesystem>
#include <functional>
#include <string>

#include "ir/graph.h"

namespace kiln {

struct SubgraphScope {
  Graph* graph = nullptr;
  std::filesystem::path base_dir;
  // Values visible in the enclosing scope by their ONNX name (null when unknown).
  std::function<Value*(const std::string&)> lookup;
  // Creates the enclosing graph's value for output `name` of the node being flattened.
  std::function<Value*(const std::string&)> make_output;
  // Same, for an output that may not have a static type yet (an If's, typed by the
  // branch it takes); null: make_output.
  std::function<Value*(const std::string&)> make_open_output;
  // Same, for an output whose type the flattening computes (a Loop's scan output,
  // whose length shape inference leaves open): the declared type when it is static,
  // else `dtype`/`shape`. Optional: flatten_control_flow supplies it for the
  // outermost scope.
  std::function<Value*(const std::string&, DType, const Shape&)> make_output_typed;
};

bool is_flattened_control_flow(const std::string& op_type);  // "If", "Scan", "Loop"

// Imports `np` (If, Scan or Loop, named `name`) into scope.graph as plain nodes.
// An If whose condition is not a constant yet stays one "If" node (see below).
void flatten_control_flow(const onnx::NodeProto& np, const std::string& name, const SubgraphScope& scope);

// The If nodes import kept (their condition was not known then). Each If whose
// condition is now a constant is replaced by its taken branch alone (the dead
// branch's shapes no longer matter; the If's outputs get the taken branch's static
// shapes). With `undecided_too` (the graph has settled), the rest are replaced by
// both branches and one KilnSelect per output. Returns how many Ifs were replaced.
size_t expand_deferred_ifs(Graph& graph, bool undecided_too);
}  // namespace kiln
