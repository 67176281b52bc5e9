// Constant folding and graph simplification (see docs/folding.md).
//
// One top-down worklist pass over the graph that interleaves shape-driven folding
// (Shape/Size of statically shaped values), canonicalization, fusion and constant
// folding, so a chain like Shape -> Gather -> Unsqueeze -> Concat -> Reshape
// resolves in one pass. A rewrite cap guarantees termination. Constants that are
// no longer reachable from the graph are released as soon as their last user is
// folded away and swept after the pass (ConstantPool).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ir/graph.h"

namespace kiln {

struct FoldOptions {
  int64_t size_limit_bytes = 1 << 20;  // a fold may not create a constant bigger than this (and than its inputs)
  bool gc = true;                      // release dead constants during and after the pass
  int max_rewrites = 100000;           // hard cap: the pass always terminates
  // Per-node shape inference, run on a node whose output shape is still unknown once
  // folding has changed its inputs (a Reshape by a folded shape), so its users fold in
  // the same pass: true when it inferred every output. The pipeline passes the ONNX
  // layer's (onnx/node_shape_inference.h); empty: no inference inside the pass.
  std::function<bool(Node&)> infer_shapes;
};

struct FoldReport {
  size_t nodes_before = 0, nodes_after = 0;
  uint64_t constant_bytes_before = 0, constant_bytes_after = 0;  // emitted bytes of reachable constants
  std::map<std::string, int> folded;               // op type -> nodes folded to constants
  std::map<std::string, int> rewritten;            // rule name -> rewrites applied
  std::vector<std::string> skipped_by_size_limit;  // nodes left as runtime ops
  bool rewrite_cap_reached = false;
  int shapes_inferred = 0;  // nodes whose output shapes the pass inferred after folding their inputs
  // Constant pool (garbage collection) statistics.
  uint64_t constants_created = 0, constants_created_bytes = 0;
  uint64_t constants_released = 0, constants_released_bytes = 0, peak_live_fold_bytes = 0;
  double seconds = 0;
};

FoldReport fold_and_simplify(Graph& graph, const FoldOptions& options);

nlohmann::json fold_report_to_json(const FoldReport& report);
std::string fold_report_summary(const FoldReport& report);
// The multi-line listing of `kiln inspect` / verbose reports.
std::string fold_report_details(const FoldReport& report);

}  // namespace kiln
