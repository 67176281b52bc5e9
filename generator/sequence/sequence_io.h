// Sequence-typed graph inputs and outputs at the tool's edges: the
// --sequence-input flag, ONNX SequenceProto test data, and the element shapes a
// test data set gives a model's sequence inputs (for `kiln verify` and the
// conformance runner). The compiled ABI is described in docs/user-guide.md.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ir/constant.h"
#include "ir/graph.h"

namespace kiln {

// "x=3:2,4" -> ("x", {[2,4],[2,4],[2,4]}); "x=2,4;3" -> ("x", {[2,4],[3]});
// "x=0:" -> ("x", {}) (an empty sequence). Throws CompileError naming the flag.
std::pair<std::string, std::vector<Shape>> parse_sequence_input_spec(const std::string& spec);

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
