#include "onnx/test_data_shapes.h"

#include <onnx/onnx_pb.h>

#include <set>

#include "onnx/model_bytes.h"
#include "onnx/tensor_proto.h"
#include "util/error.h"

namespace kiln {

namespace fs = std::filesystem;

std::map<std::string, Shape> open_input_shapes_from_test_data(const fs::path& model, const fs::path& data_dir) {
  std::map<std::string, Shape> out;
  onnx::ModelProto mp;
  try {
    ModelBytes mb = load_model_bytes(model);  // weights stay in the file
    if (!mp.ParseFromString(mb.proto)) return out;
  } catch (const CompileError&) {
    return out;
  }
  std::set<std::string> inits;
  for (const auto& t : mp.graph().initializer()) inits.insert(t.name());
  size_t pos = 0;
  for (const auto& vi : mp.graph().input()) {
    if (inits.count(vi.name())) continue;
    const size_t position = pos++;
    if (!vi.type().has_tensor_type()) continue;
    const auto& tt = vi.type().tensor_type();
    bool open = !tt.has_shape();
    if (tt.has_shape())
      for (const auto& d : tt.shape().dim()) open |= !d.has_dim_value();
    if (!open) continue;
    const fs::path f = data_dir / ("input_" + std::to_string(position) + ".pb");
    if (!fs::exists(f)) continue;
    ConstantPtr c;
    try {
      c = read_tensor_pb(f);
    } catch (const CompileError&) {
      continue;  // not a tensor file (a sequence): left to the compile
    }
    const Shape& s = c->shape();
    bool fits = !tt.has_shape() || tt.shape().dim_size() == int(s.size());
    for (int i = 0; fits && tt.has_shape() && i < tt.shape().dim_size(); ++i)
      fits = !tt.shape().dim(i).has_dim_value() || tt.shape().dim(i).dim_value() == s[size_t(i)];
    if (fits) out[vi.name()] = s;
  }
  return out;
}

}  // namespace kiln
