// Import: an .onnx file -> Kiln graph IR.
//
// Uses ONNX's own protobuf classes, checker and shape inference. After import
// every value has a dtype and a static shape, every initializer and Constant node
// is a constant value, and nodes are in the model's (topological) order.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "ir/graph.h"
#include "ir/opset.h"

namespace kiln {

struct ImportOptions {
  // Overrides for graph input shapes (resolves dynamic dims such as a batch 'N').
  std::map<std::string, Shape> input_shapes;
  // Element shapes of sequence-typed graph inputs (the count is the number of
  // shapes). Such an input becomes tensor inputs <name>_0.. feeding a
  // SequenceConstruct (or a SequenceEmpty when the count is 0).
  std::map<std::string, std::vector<Shape>> sequence_inputs;
  // Compile-time values of graph inputs (--input-value NAME=V0,V1,...), in
  // row-major order: each such input becomes a constant of its declared type and
  // (static, maybe --input-shape'd) shape and leaves the generated API.
  std::map<std::string, std::vector<double>> input_values;
  // Receives warnings (a graph input no node uses); null: they are dropped.
  std::function<void(const std::string&)> warn;
};

// Throws CompileError with a one-line message for a corrupt file, a model the
// checker rejects, an unsupported opset/domain/dtype, or a shape that stays dynamic.
std::unique_ptr<Graph> import_onnx(const std::filesystem::path& model_path, const ImportOptions& options = {});

// The same for a model held in memory (the fuzz target, tests/fuzz/): no external
// data, nothing read from or written to disk.
std::unique_ptr<Graph> import_onnx_from_memory(std::vector<uint8_t> bytes, const ImportOptions& options = {});

// The first and last default-domain opsets Kiln accepts.
constexpr int64_t kMinOpset = 7;
constexpr int64_t kMaxOpset = kIrOpset;
// Models older than kMinOpset are converted to this opset on import (see import_onnx).
constexpr int64_t kUpgradeOpset = 9;

}  // namespace kiln
