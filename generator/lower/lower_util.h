// Helpers shared by the lowering files in lower/ops/: checks that name the node,
// and a small builder for C99 designated initializers of parameter structs.
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"
#include "lower/lowering.h"

namespace kiln {

// Throws CompileError unless input/output `v` has dtype `t`.
void require_dtype(const Node& n, const Value* v, DType t, const char* what);
// "$in<i>" when input `i` is present, else "NULL": an optional operand of a kernel call.
std::string in_or_null(const Node& n, size_t i);
// The crt kernel suffix of a float dtype ("f32" or "f64"); throws naming the node
// for any other dtype.
std::string float_suffix(const Node& n, DType t);
// Every input and output (present ones) must be float32.
void require_float32(const Node& n);
// Throws when output `i` exists (defined dtype) and is used: the op's optional
// output that Kiln does not compute (e.g. MaxPool's Indices).
void reject_used_output(const Node& n, size_t i, const char* what);
// A required constant input; throws naming the node when it is not constant.
ConstantPtr constant_input(const Node& n, size_t i, const char* what);
// Normalizes a possibly negative axis against `rank`; throws when out of range.
int64_t normalize_axis(const Node& n, int64_t axis, int64_t rank);
// Throws unless the optional vector `v` (a bias, one value per channel, which the
// kernel indexes by channel) holds exactly `count` elements.
void require_per_channel(const Node& n, const Value* v, int64_t count, const char* what);
// Throws when a dimension or element count exceeds what the kernels' int32/uint32 fields hold.
void check_fits_32bit(const Node& n, const Shape& s);

// Builds "{ .a = 1u, .b = 2.5f }".
class ParamsInit {
 public:
  ParamsInit& u(const std::string& field, int64_t v);       // unsigned: "3u"
  ParamsInit& i(const std::string& field, int64_t v);       // signed: "-1"
  ParamsInit& f(const std::string& field, double v);        // float literal
  ParamsInit& ints(const std::string& field, const std::vector<int64_t>& v);  // "{1, 2}"
  ParamsInit& raw(const std::string& field, const std::string& c_text);
  std::string str() const;

 private:
  std::vector<std::string> fields_;
};

// numpy broadcasting of two shapes into kiln_broadcast_t fields: output shape and
// per-input strides, with size-1 dims dropped and contiguous dims merged.
struct BroadcastPlan {
  std::vector<int64_t> shape, stride_a, stride_b;
};
BroadcastPlan plan_broadcast(const Node& n, const Shape& a, const Shape& b, const Shape& out);
std::string broadcast_init(const BroadcastPlan& p);

}  // namespace kiln
