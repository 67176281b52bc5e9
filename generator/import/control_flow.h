// Flattening of ONNX control flow at import (If, Scan).
//
// Kiln plans memory for one static schedule, so a node carrying subgraphs (GraphProto
// attributes) is not kept as a node: its subgraph(s) are imported as ordinary nodes
// of the enclosing graph, with fresh value names, and small internal nodes connect
// them:
//   If    both branches are imported; one `KilnSelect` node per output copies the
//         branch the run-time condition picks (both are computed; both must have the
//         same static shape).
//   Scan  the body is unrolled once per step of the (static) scanned axis; a
//         `KilnTakeSlice` node feeds each step its slice, Reshape + Concat stack the
//         scan outputs, Identity passes the final state out.
// KilnSelect / KilnTakeSlice are default-domain op types no ONNX model can contain
// (the checker rejects unknown ops); they are lowered in lower/ops/control_flow.cpp.
// Loop is not flattened yet (its trip count is a run-time input in general).
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
};

bool is_flattened_control_flow(const std::string& op_type);  // "If", "Scan"

// Imports `np` (If or Scan, named `name`) into scope.graph as plain nodes.
void flatten_control_flow(const onnx::NodeProto& np, const std::string& name, const SubgraphScope& scope);

}  // namespace kiln
