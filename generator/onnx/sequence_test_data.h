// Sequence-typed graph inputs and outputs in ONNX test data: SequenceProto files
// and the element shapes a test data set gives a model's sequence inputs (for
// `kiln verify` and the conformance runner). The --sequence-input flag is parsed in
// cli/compile_options.h. The compiled ABI is described in docs/user-guide.md.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ir/constant.h"
#include "ir/graph.h"

namespace kiln {

// Reads a serialized onnx.SequenceProto of tensors (test data input_N.pb /
// output_N.pb). Throws CompileError naming the file when it is not one.
std::vector<ConstantPtr> read_sequence_pb(const std::filesystem::path& file);

// The sequence-typed graph inputs of `model`: (position among the graph's
// non-initializer inputs, name).
std::vector<std::pair<size_t, std::string>> model_sequence_inputs(const std::filesystem::path& model);

// Element shapes of the model's sequence inputs as stored in one test data set
// (input_<position>.pb); inputs whose file is missing or unreadable are left out.
std::map<std::string, std::vector<Shape>> sequence_shapes_from_test_data(const std::filesystem::path& model,
                                                                       const std::filesystem::path& data_dir);

}  // namespace kiln
