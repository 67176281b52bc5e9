// Constant folding and graph simplification (see docs/folding.md).
//
// One top-down worklist pass over the graph that interleaves shape inference,
// canonicalization, decomposition and folding; constants no longer reachable
// from the graph are released after the pass.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ir/graph.h"

namespace kiln {

struct FoldOptions {
  int64_t size_limit_bytes = 1 << 20;  // a fold may not create a constant bigger than this
  bool gc = true;                      // release dead constants after each pass
  int max_rewrites = 100000;           // hard cap: the pass always terminates
};

struct FoldReport {
  size_t nodes_before = 0, nodes_after = 0;
  uint64_t constant_bytes_before = 0, constant_bytes_after = 0;
  std::map<std::string, int> folded;               // op type -> nodes folded to constants
  std::map<std::string, int> rewritten;            // rule name -> rewrites applied
  std::vector<std::string> skipped_by_size_limit;  // nodes left as runtime ops
};

FoldReport fold_and_simplify(Graph& graph, const FoldOptions& options);

nlohmann::json fold_report_to_json(const FoldReport& report);
std::string fold_report_summary(const FoldReport& report);

}  // namespace kiln
