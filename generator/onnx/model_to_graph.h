// The second half of ONNX import: a ModelProto that ONNX's checker accepted and
// whose shapes ONNX inferred becomes Kiln's graph IR (ir/graph.h). Initializers and
// Constant nodes become constant values, graph inputs (sequence inputs split into
// their elements) and outputs are listed, subgraph attributes become IR graphs held
// by their node (onnx/graph_conversion.h). onnx_importer.cpp does the first half:
// parsing, opsets, validation, the checker and shape inference.
#pragma once

#include <filesystem>
#include <memory>
#include <set>
#include <string>

#include "ir/graph.h"
#include "onnx/model_bytes.h"
#include "onnx/onnx_importer.h"

namespace onnx {
class ModelProto;
class ValueInfoProto;
}  // namespace onnx

namespace kiln {

// What model_to_graph needs besides the model.
struct GraphSource {
  const ModelBytes* bytes = nullptr;            // initializers sliced out of the file (model_bytes.h)
  std::filesystem::path base_dir;               // external data is read relative to it
  int64_t opset = 0;                            // the default-domain opset the model is now at
  const std::set<std::string>* bound = nullptr;  // graph inputs fixed by --input-value (now initializers)
};

std::unique_ptr<Graph> model_to_graph(const onnx::ModelProto& model, const GraphSource& source,
                                      const ImportOptions& options);

// Type and static shape of a value from its ValueInfoProto; returns false, with the
// reason in `why`, when it is not a tensor of a known type with a static shape.
bool read_value_info(const onnx::ValueInfoProto& vi, DType* dtype, Shape* shape, std::string* why);

}  // namespace kiln
