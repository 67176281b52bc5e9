// ONNX nodes -> IR: attribute conversion and Constant decoding, one implementation
// for the top graph and every subgraph body (If branches, Loop / Scan bodies,
// SequenceMap bodies).
#pragma once

#include <filesystem>
#include <string>

#include "ir/graph.h"

namespace onnx {
class AttributeProto;
class NodeProto;
}  // namespace onnx

namespace kiln {

// One attribute as an IR attribute value. TENSOR attributes become constants (external
// data resolved in `base_dir`). Throws CompileError naming `who` (the node) for a
// type Kiln does not take (GRAPH attributes are the control-flow converter's).
AttrValue convert_attribute(const onnx::AttributeProto& a, const std::string& who,
                            const std::filesystem::path& base_dir);

// The value of a Constant node: `value` (a tensor), `value_float(s)` or
// `value_int(s)`. Throws CompileError naming `who` for any other form.
ConstantPtr decode_constant_node(const onnx::NodeProto& np, const std::string& who,
                                 const std::filesystem::path& base_dir);

// Whether `domain` names the default ONNX domain ("" or "ai.onnx").
bool is_default_domain(const std::string& domain);

}  // namespace kiln
