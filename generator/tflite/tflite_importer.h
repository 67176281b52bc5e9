// Import: a .tflite file -> Kiln graph IR.
//
// The main subgraph becomes a Graph whose values are named after the TFLite
// tensors (so the generated API names inputs and outputs after them). Int8
// operators become the integer IR of docs/quantization.md (KilnQ* ops, NHWC);
// float operators become ONNX-style ops (NCHW spatial ops between Transposes);
// data movement stays in ONNX ops on the tensor's own dtype. See
// docs/user-guide.md ("TFLite models") for what is supported.
#pragma once

#include <filesystem>
#include <memory>
#include <vector>

#include "ir/graph.h"
#include "tflite/tflite_file.h"

namespace kiln {

// Throws CompileError (one line) for a malformed file or an operator Kiln cannot
// map, naming the operator and its index.
std::unique_ptr<Graph> import_tflite(const std::filesystem::path& model_path);
// The same from an already loaded model (tests).
std::unique_ptr<Graph> import_tflite_model(const tflite::Model& model, const std::string& file);

// The builtin operator codes the importer maps, each with the flavors registered
// for it (int8, float32, or one mapping for every dtype).
struct TfliteOperatorMapping {
  int32_t code = 0;
  bool int8 = false, float32 = false, any = false;
};
std::vector<TfliteOperatorMapping> tflite_operator_mappings();

}  // namespace kiln
