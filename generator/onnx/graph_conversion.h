// ONNX subgraphs -> IR subgraphs: a GRAPH attribute (an If branch, a Loop / Scan /
// SequenceMap body) becomes a GraphPtr attribute of its node (ir/graph.h). The
// body's nodes go through the same conversion as the model's own (node_conversion.h):
// attributes, Constant decoding, value types from ONNX's shape inference.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace onnx {
class AttributeProto;
class GraphProto;
}  // namespace onnx

namespace kiln {

struct SubgraphContext {
  std::filesystem::path base_dir;  // external data of the body's tensors
  int64_t opset = 0;               // default-domain opset of the model
};

// Converts `body` (a subgraph of node `who`) into an IR Graph:
//   inputs     the body's formal inputs, typed as declared (shape_known false when
//              a dimension is open, is_sequence for a sequence)
//   values     initializers are constants; node outputs are typed from ONNX's shape
//              inference (value_info / outputs) where it knew them, else open
//   nodes      in the body's order; a Constant node stays a node ("Constant" with a
//              tensor attribute "value"), so an instance of the body keeps its order
//   captures   one stand-in per name the body reads from enclosing scopes;
//              `outer_defines(name)` says whether an enclosing scope defines it
//   outputs    the body's results
// A node of the body holding subgraphs itself takes their captures as its last
// inputs (Node::own_input_count). Throws CompileError naming `who` for a name
// defined nowhere, a sequence of non-tensors, or an unsupported attribute.
GraphPtr convert_subgraph(const onnx::GraphProto& body, const std::string& who, const SubgraphContext& context,
                          const std::function<bool(const std::string&)>& outer_defines);

// The GRAPH attributes of a node converted with convert_subgraph, and the names of
// the enclosing scope their bodies read (the node's captures, sorted by name).
struct ConvertedSubgraphs {
  std::map<std::string, GraphPtr> graphs;  // attribute name -> subgraph
  std::vector<std::string> captured;
};
ConvertedSubgraphs convert_graph_attributes(const std::vector<const onnx::AttributeProto*>& attrs,
                                            const std::string& who, const SubgraphContext& context,
                                            const std::function<bool(const std::string&)>& outer_defines);

}  // namespace kiln
