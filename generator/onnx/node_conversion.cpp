#include "onnx/node_conversion.h"

#include <onnx/onnx_pb.h>

#include "onnx/tensor_proto.h"
#include "util/error.h"
#include "util/quoted.h"

namespace kiln {

AttrValue convert_attribute(const onnx::AttributeProto& a, const std::string& who,
                            const std::filesystem::path& base_dir) {
  using A = onnx::AttributeProto;
  switch (a.type()) {
    case A::INT: return int64_t(a.i());
    case A::FLOAT: return double(a.f());
    case A::STRING: return a.s();
    case A::INTS: return std::vector<int64_t>(a.ints().begin(), a.ints().end());
    case A::FLOATS: return std::vector<double>(a.floats().begin(), a.floats().end());
    case A::STRINGS: return std::vector<std::string>(a.strings().begin(), a.strings().end());
    case A::TENSOR: return constant_from_tensor_proto(a.t(), base_dir, who + " attribute " + in_quotes(a.name()));
    default:
      throw CompileError(who + ": attribute " + in_quotes(a.name()) + " of type " + A::AttributeType_Name(a.type()) +
                         " is not supported");
  }
}

ConstantPtr decode_constant_node(const onnx::NodeProto& np, const std::string& who,
                                 const std::filesystem::path& base_dir) {
  if (np.attribute_size() != 1) throw CompileError(who + ": expected exactly one attribute");
  const auto& a = np.attribute(0);
  if (a.name() == "value") return constant_from_tensor_proto(a.t(), base_dir, who);
  if (a.name() == "value_float") return Constant::from_floats({}, {a.f()});
  if (a.name() == "value_floats")
    return Constant::from_floats({int64_t(a.floats_size())}, {a.floats().begin(), a.floats().end()});
  if (a.name() == "value_int") return Constant::from_int64s({}, {a.i()});
  if (a.name() == "value_ints")
    return Constant::from_int64s({int64_t(a.ints_size())}, {a.ints().begin(), a.ints().end()});
  throw CompileError(who + ": Constant attribute " + in_quotes(a.name()) + " is not supported");
}

bool is_default_domain(const std::string& d) { return d.empty() || d == "ai.onnx"; }

}  // namespace kiln
