// Helpers shared by the reduction / indexing / data-movement lowerings
// (reduce.cpp, softmax.cpp, indexing.cpp, scatter.cpp, pad.cpp, layout.cpp).
#pragma once

#include <string>
#include <vector>

#include "lower/lower_util.h"
#include "util/error.h"

namespace kiln::data {

// The crt kernel suffix of a numeric dtype ("f32", "i64", ...); bool maps to "u8"
// when `bool_as_u8` (kernels that only compare or copy). Throws naming the node.
inline std::string numeric_suffix(const Node& n, DType t, bool bool_as_u8 = false) {
  switch (t) {
    case DType::Float32: return "f32";
    case DType::Float64: return "f64";
    case DType::Int8: return "i8";
    case DType::UInt8: return "u8";
    case DType::Int16: return "i16";
    case DType::UInt16: return "u16";
    case DType::Int32: return "i32";
    case DType::UInt32: return "u32";
    case DType::Int64: return "i64";
    case DType::UInt64: return "u64";
    case DType::Bool:
      if (bool_as_u8) return "u8";
      break;
    default: break;
  }
  throw CompileError(n.describe() + ": dtype " + dtype_name(t) + " is not supported by this operator");
}

// Element size of a dtype Kiln can move as raw bytes (1, 2, 4, 8).
inline int64_t elem_size(const Node& n, DType t) {
  size_t es = dtype_size(t);
  if (es != 1 && es != 2 && es != 4 && es != 8)
    throw CompileError(n.describe() + ": dtype " + dtype_name(t) + " is not supported");
  return int64_t(es);
}

// Byte size of an int32/int64 index tensor (input i).
inline int64_t index_size(const Node& n, size_t i) {
  const Value* v = n.input(i);
  if (!v) throw CompileError(n.describe() + ": input " + std::to_string(i) + " (indices) is required");
  if (v->dtype == DType::Int64) return 8;
  if (v->dtype == DType::Int32) return 4;
  throw CompileError(n.describe() + ": indices of dtype " + dtype_name(v->dtype) + " (int32 or int64 expected)");
}

inline std::vector<int64_t> row_major_strides(const Shape& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (size_t d = s.size(); d-- > 1;) st[d - 1] = st[d] * s[d];
  return st;
}

// C99 has no empty initializer lists; an unused array field gets one zero.
inline std::vector<int64_t> nonempty(std::vector<int64_t> v) {
  if (v.empty()) v.push_back(0);
  return v;
}

// [outer, axis, inner] sizes of `s` around dimension `axis`.
struct AxisSplit {
  int64_t outer = 1, axis = 1, inner = 1;
};
inline AxisSplit split_at(const Shape& s, int64_t axis) {
  AxisSplit r;
  for (int64_t d = 0; d < int64_t(s.size()); ++d) {
    if (d < axis) r.outer *= s[size_t(d)];
    else if (d == axis) r.axis = s[size_t(d)];
    else r.inner *= s[size_t(d)];
  }
  return r;
}

// A strided copy (kiln_transpose): out[i...] = in[offset + sum i_k * stride_k] over
// `shape` (the output shape). Size-1 dims are dropped and dims that step through
// memory contiguously are merged, so the inner loop is as long as possible.
KernelCall strided_copy(const Node& n, int64_t es, const Shape& shape, const std::vector<int64_t>& stride,
                        int64_t offset = 0);

}  // namespace kiln::data
