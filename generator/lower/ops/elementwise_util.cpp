#include "lower/ops/elementwise_util.h"

#include "util/error.h"

namespace kiln {

std::string elt_suffix(const Node& n, DType t) {
  switch (t) {
    case DType::Float32: return "f32";
    case DType::Float64: return "f64";
    case DType::Float16: return "f16";
    case DType::BFloat16: return "bf16";
    case DType::Int8: return "i8";
    case DType::Int16: return "i16";
    case DType::Int32: return "i32";
    case DType::Int64: return "i64";
    case DType::UInt8: return "u8";
    case DType::UInt16: return "u16";
    case DType::UInt32: return "u32";
    case DType::UInt64: return "u64";
    case DType::Bool: return "b";
    default: break;
  }
  throw CompileError(n.describe() + ": dtype " + dtype_name(t) + " is not supported");
}

bool elt_accepts(EltTypes set, DType t) {
  const bool fl = t == DType::Float32 || t == DType::Float64 || t == DType::Float16;
  const bool sint = t == DType::Int8 || t == DType::Int16 || t == DType::Int32 || t == DType::Int64;
  const bool uint = t == DType::UInt8 || t == DType::UInt16 || t == DType::UInt32 || t == DType::UInt64;
  switch (set) {
    case EltTypes::Float: return fl;
    case EltTypes::SignedOrFloat: return fl || sint;
    case EltTypes::Numeric: return fl || sint || uint;
    case EltTypes::NumericOrBool: return fl || sint || uint || t == DType::Bool;
    case EltTypes::UInt: return uint;
    case EltTypes::Bool: return t == DType::Bool;
  }
  return false;
}

std::string elt_types_name(EltTypes set) {
  switch (set) {
    case EltTypes::Float: return "float16/float32/float64";
    case EltTypes::SignedOrFloat: return "float16/float32/float64 and signed integers";
    case EltTypes::Numeric: return "float16/float32/float64 and integers";
    case EltTypes::NumericOrBool: return "float16/float32/float64, integers and bool";
    case EltTypes::UInt: return "unsigned integers";
    case EltTypes::Bool: return "bool";
  }
  return "?";
}

void require_elt_types(const Node& n, DType t, EltTypes set, const std::string& what) {
  if (!elt_accepts(set, t))
    throw CompileError(n.describe() + ": " + what + " has dtype " + dtype_name(t) + "; this operator supports " +
                       elt_types_name(set));
}

const Value* elt_input(const Node& n, size_t i) {
  const Value* v = n.input(i);
  if (v == nullptr) throw CompileError(n.describe() + ": input " + std::to_string(i) + " is required");
  return v;
}

Shape legacy_broadcast_shape(const Node& n, const Shape& a, const Shape& b) {
  if (n.opset >= 7 || !n.has_attr("broadcast")) return b;
  if (n.attr_int("broadcast", 0) == 0) {
    if (a != b)
      throw CompileError(n.describe() + ": shapes " + shape_str(a) + " and " + shape_str(b) +
                         " differ but the legacy 'broadcast' attribute is 0");
    return b;
  }
  if (!n.has_attr("axis")) return b;  // suffix alignment: the same as numpy's
  int64_t axis = n.attr_int("axis", 0);
  const int64_t ra = int64_t(a.size()), rb = int64_t(b.size());
  if (axis < 0) axis += ra;
  if (axis < 0 || axis + rb > ra)
    throw CompileError(n.describe() + ": legacy broadcast axis " + std::to_string(n.attr_int("axis", 0)) +
                       " does not fit shapes " + shape_str(a) + " and " + shape_str(b));
  Shape s(size_t(ra), 1);
  for (int64_t k = 0; k < rb; ++k) s[size_t(axis + k)] = b[size_t(k)];
  return s;
}

KernelCall binary_broadcast_call(const Node& n, const std::string& kernel) {
  if (n.outputs.empty()) throw CompileError(n.describe() + ": expects an output");
  const Value* a = elt_input(n, 0);
  const Value* b = elt_input(n, 1);
  const Shape& out = n.outputs[0]->shape;
  BroadcastPlan p = plan_broadcast(n, a->shape, legacy_broadcast_shape(n, a->shape, b->shape), out);
  KernelCall k;
  k.params_type = "kiln_broadcast_t";
  k.params_init = broadcast_init(p);
  k.call = kernel + "(&$params, $in0, $in1, $out0)";
  return k;
}

std::string nary_broadcast_init(const Node& n, const std::vector<Shape>& inputs, const Shape& out) {
  const size_t r = out.size(), nin = inputs.size();
  check_fits_32bit(n, out);
  // Per input: strides over the output's dims (right-aligned), 0 where broadcast.
  std::vector<std::vector<int64_t>> st(nin, std::vector<int64_t>(r, 0));
  for (size_t k = 0; k < nin; ++k) {
    const Shape& s = inputs[k];
    if (s.size() > r) throw CompileError(n.describe() + ": input rank exceeds output rank");
    int64_t acc = 1;
    for (size_t j = 0; j < s.size(); ++j) {
      const size_t d = s.size() - 1 - j, od = r - 1 - j;
      if (s[d] != 1 && s[d] != out[od])
        throw CompileError(n.describe() + ": input " + std::to_string(k) + " of shape " + shape_str(s) +
                           " does not broadcast to " + shape_str(out));
      st[k][od] = s[d] == 1 ? 0 : acc;
      acc *= s[d];
    }
  }
  // Keep dims of size > 1; merge a dim into the previous kept one when every
  // input steps through both contiguously.
  std::vector<int64_t> shape;
  std::vector<std::vector<int64_t>> kept(nin);
  for (size_t d = 0; d < r; ++d) {
    if (out[d] == 1) continue;
    bool merge = !shape.empty();
    for (size_t k = 0; k < nin && merge; ++k) merge = kept[k].back() == st[k][d] * out[d];
    if (merge) {
      shape.back() *= out[d];
      for (size_t k = 0; k < nin; ++k) kept[k].back() = st[k][d];
      continue;
    }
    shape.push_back(out[d]);
    for (size_t k = 0; k < nin; ++k) kept[k].push_back(st[k][d]);
  }
  if (shape.empty() || shape_elements(out) == 0) {
    shape = {shape_elements(out) == 0 ? 0 : 1};
    for (auto& v : kept) v = {0};
  }
  std::vector<int64_t> flat;
  for (const auto& v : kept) flat.insert(flat.end(), v.begin(), v.end());
  return ParamsInit()
      .u("ndim", int64_t(shape.size()))
      .u("num_inputs", int64_t(nin))
      .ints("shape", shape)
      .raw("strides", "(const int32_t[])" + c_int_array(flat))
      .str();
}

}  // namespace kiln
