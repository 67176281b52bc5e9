// Validation of an untrusted model before anything else reads it.
//
// ONNX's checker, shape inference and version converter (and Kiln's own shape
// rules) divide by strides, index with axes and allocate by block sizes without
// checking them first; a model that sets a stride to 0 or an axis to INT64_MAX
// crashes them. So every node, attribute, tensor and declared shape of the model is
// checked here, against one table of per-operator rules, before any of them runs.
// Each failure is a CompileError naming the node and the value.
//
// validate_model_proto runs on the parsed protobuf (onnx/onnx_importer.cpp);
// check_constant_indices runs on the IR once folding has made indices constant
// (driver/compile.cpp).
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <string>

#include "ir/graph.h"

namespace onnx {
class ModelProto;
class NodeProto;
class TensorProto;
}  // namespace onnx

namespace kiln {

struct ModelProtoChecks {
  std::filesystem::path base_dir;  // the model's folder (external data must stay inside it)
  // Size in bytes of an initializer whose raw_data load_model_bytes cut out of the
  // protobuf, or -1 when `name` was not cut out.
  std::function<int64_t(const std::string& name)> sliced_bytes;
  // Warnings (an unused graph input) go here; null: dropped.
  std::function<void(const std::string&)> warn;
};

// Throws CompileError at the first node, attribute, tensor or declared shape of
// `model` (and its subgraphs) that breaks a rule; `opset` is the model's ai.onnx
// opset.
void validate_model_proto(const onnx::ModelProto& model, int64_t opset, const ModelProtoChecks& checks);

// The per-node rules of validate_model_proto (arity, attributes, ranks, constant
// inputs) for one node Kiln's own shape inference is about to hand to ONNX after
// folding computed its inputs (onnx/node_shape_inference.cpp): `ranks` and
// `constants` by input name, `opset` of the node's domain.
void validate_node_proto(const onnx::NodeProto& np, int64_t opset, const std::map<std::string, int64_t>& ranks,
                         const std::map<std::string, const onnx::TensorProto*>& constants);

// Gather / GatherElements / GatherND / Scatter* / ScatterElements / ScatterND whose
// indices are constants: every index must lie inside the data's dimension.
void check_constant_indices(const Graph& graph);

}  // namespace kiln
