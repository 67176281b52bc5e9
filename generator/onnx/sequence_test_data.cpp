#include "onnx/sequence_test_data.h"

#include <onnx/onnx-data_pb.h>
#include <onnx/onnx_pb.h>

#include <fstream>
#include <set>
#include <sstream>

#include "onnx/tensor_proto.h"
#include "util/error.h"
#include "util/quoted.h"

namespace kiln {

namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw CompileError("cannot open " + in_quotes(file.string()));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

std::vector<ConstantPtr> read_sequence_pb(const fs::path& file) {
  onnx::SequenceProto sp;
  if (!sp.ParseFromString(read_file(file))) throw CompileError(in_quotes(file.string()) + " is not a valid SequenceProto file");
  if (sp.elem_type() != onnx::SequenceProto::TENSOR)
    throw CompileError(in_quotes(file.string()) + " is not a sequence of tensors (only tensor sequences are supported)");
  std::vector<ConstantPtr> out;
  for (int i = 0; i < sp.tensor_values_size(); ++i)
    out.push_back(constant_from_tensor_proto(sp.tensor_values(i), file.parent_path(),
                                             "element " + std::to_string(i) + " of " + in_quotes(file.string())));
  return out;
}

std::vector<std::pair<size_t, std::string>> model_sequence_inputs(const fs::path& model) {
  onnx::ModelProto mp;
  if (!mp.ParseFromString(read_file(model))) return {};
  std::set<std::string> inits;
  for (const auto& t : mp.graph().initializer()) inits.insert(t.name());
  std::vector<std::pair<size_t, std::string>> out;
  size_t pos = 0;
  for (const auto& vi : mp.graph().input()) {
    if (inits.count(vi.name())) continue;
    if (vi.type().has_sequence_type()) out.push_back({pos, vi.name()});
    ++pos;
  }
  return out;
}

std::map<std::string, std::vector<Shape>> sequence_shapes_from_test_data(const fs::path& model,
                                                                       const fs::path& data_dir) {
  std::map<std::string, std::vector<Shape>> out;
  for (const auto& [pos, name] : model_sequence_inputs(model)) {
    fs::path f = data_dir / ("input_" + std::to_string(pos) + ".pb");
    if (!fs::exists(f)) continue;
    try {
      std::vector<Shape> shapes;
      for (const auto& c : read_sequence_pb(f)) shapes.push_back(c->shape());
      out[name] = shapes;
    } catch (const CompileError&) {
      // Not a sequence file: the compiler will say what it thinks of the model.
    }
  }
  return out;
}

}  // namespace kiln
