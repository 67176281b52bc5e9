// Import: an .onnx file -> Kiln graph IR.
//
// Uses ONNX's own protobuf classes, checker and shape inference. After import
// every value has a dtype and a static shape, every initializer and Constant node
// is a constant value, and nodes are in the model's (topological) order.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "ir/graph.h"

namespace kiln {

struct ImportOptions {
  // Overrides for graph input shapes (resolves dynamic dims such as a batch 'N').
  std::map<std::string, Shape> input_shapes;
  // Element shapes of sequence-typed graph inputs (the count is the number of
  // shapes). Such an input becomes tensor inputs <name>_0.. feeding a
  // SequenceConstruct (or a SequenceEmpty when the count is 0).
  std::map<std::string, std::vector<Shape>> sequence_inputs;
};

// Throws CompileError with a one-line message for a corrupt file, a model the
// checker rejects, an unsupported opset/domain/dtype, or a shape that stays dynamic.
std::unique_ptr<Graph> import_onnx(const std::filesystem::path& model_path, const ImportOptions& options = {});

// The first and last default-domain opsets Kiln accepts.
constexpr int64_t kMinOpset = 7;
constexpr int64_t kMaxOpset = 17;
// Models older than kMinOpset are converted to this opset on import (see import_onnx).
constexpr int64_t kUpgradeOpset = 9;

}  // namespace kiln
