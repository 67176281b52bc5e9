// Helpers shared by the element-wise lowering files (elementwise*.cpp,
// unary_math.cpp, logic.cpp, compare.cpp, cast.cpp, where.cpp): the kernel dtype
// suffix, dtype sets, and broadcasting plans for 2 and N inputs.
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "lower/lower_util.h"

namespace kiln {

// The crt kernel suffix of a dtype ("f32", "f16", "bf16", "i8", "u64", "b"); throws
// naming the node for dtypes the kernels cannot store (string, undefined).
std::string elt_suffix(const Node& n, DType t);

// Dtype sets the element-wise ops accept.
enum class EltTypes { Float, SignedOrFloat, Numeric, NumericOrBool, UInt, Bool };
bool elt_accepts(EltTypes set, DType t);
std::string elt_types_name(EltTypes set);
// Throws naming the node unless `t` (of input/output `what`) is in `set`.
void require_elt_types(const Node& n, DType t, EltTypes set, const std::string& what);
// Input `i` must be present; returns it.
const Value* elt_input(const Node& n, size_t i);

// The shape input B contributes to broadcasting against A: for opset < 7 models
// with the legacy `broadcast`/`axis` attributes, B's dims are placed at `axis`
// of A (padded with 1s); otherwise B's shape unchanged (numpy rules).
Shape legacy_broadcast_shape(const Node& n, const Shape& a, const Shape& b);

// A binary broadcasting kernel call: "<kernel>(&$params, $in0, $in1, $out0)" with a
// kiln_broadcast_t planned from the two inputs' shapes to output 0's shape.
KernelCall binary_broadcast_call(const Node& n, const std::string& kernel);

// numpy broadcasting of N inputs to `out`, as a kiln_broadcast_n_t initializer
// (size-1 output dims dropped, dims merged where every input is contiguous).
std::string nary_broadcast_init(const Node& n, const std::vector<Shape>& inputs, const Shape& out);

}  // namespace kiln
