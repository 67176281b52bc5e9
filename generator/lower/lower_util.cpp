#include "lower/lower_util.h"

#include <algorithm>
#include <climits>

#include "util/error.h"
#include "util/quoted.h"

namespace kiln {

void require_dtype(const Node& n, const Value* v, DType t, const char* what) {
  if (v != nullptr && v->dtype != t)
    throw CompileError(n.describe() + ": " + what + " " + in_quotes(v->name) + " has dtype " + dtype_name(v->dtype) +
                       "; this operator supports " + dtype_name(t) + " only");
}

void require_per_channel(const Node& n, const Value* v, int64_t count, const char* what) {
  if (v != nullptr && shape_elements(v->shape) != count)
    throw CompileError(n.describe() + ": " + what + " " + in_quotes(v->name) + " has shape " + shape_str(v->shape) + ", " +
                       std::to_string(shape_elements(v->shape)) + " values; expected " + std::to_string(count) +
                       " (one per output channel)");
}

std::string in_or_null(const Node& n, size_t i) { return n.input(i) ? "$in" + std::to_string(i) : "NULL"; }

std::string float_suffix(const Node& n, DType t) {
  if (t == DType::Float32) return "f32";
  if (t == DType::Float64) return "f64";
  throw CompileError(n.describe() + ": input of dtype " + dtype_name(t) +
                     " is not supported (float32 and float64 only)");
}

void require_float32(const Node& n) {
  for (const Value* v : n.inputs) require_dtype(n, v, DType::Float32, "input");
  for (const Value* v : n.outputs)
    if (v->dtype != DType::Undefined) require_dtype(n, v, DType::Float32, "output");
}

void reject_used_output(const Node& n, size_t i, const char* what) {
  if (i < n.outputs.size() && n.outputs[i]->dtype != DType::Undefined &&
      (!n.outputs[i]->users.empty() || n.outputs[i]->is_graph_output))
    throw CompileError(n.describe() + ": output " + std::to_string(i) + " (" + what + ") is not supported");
}

ConstantPtr constant_input(const Node& n, size_t i, const char* what) {
  const Value* v = n.input(i);
  if (v == nullptr || !v->is_constant())
    throw CompileError(n.describe() + ": input " + std::to_string(i) + " (" + what +
                       ") must be known at compile time (a constant or initializer)");
  return v->constant;
}

int64_t normalize_axis(const Node& n, int64_t axis, int64_t rank) {
  int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= std::max<int64_t>(rank, 1))
    throw CompileError(n.describe() + ": axis " + std::to_string(axis) + " is out of range for rank " +
                       std::to_string(rank));
  return a;
}

void check_fits_32bit(const Node& n, const Shape& s) {
  if (shape_elements(s) > INT32_MAX)
    throw CompileError(n.describe() + ": tensor " + shape_str(s) + " has more than 2^31 elements");
  if (s.size() > 8) throw CompileError(n.describe() + ": tensors of rank " + std::to_string(s.size()) + " (max 8)");
}

ParamsInit& ParamsInit::u(const std::string& f, int64_t v) {
  fields_.push_back("." + f + " = " + std::to_string(v) + "u");
  return *this;
}
ParamsInit& ParamsInit::i(const std::string& f, int64_t v) {
  fields_.push_back("." + f + " = " + std::to_string(v));
  return *this;
}
ParamsInit& ParamsInit::f(const std::string& f, double v) {
  fields_.push_back("." + f + " = " + c_float(v));
  return *this;
}
ParamsInit& ParamsInit::ints(const std::string& f, const std::vector<int64_t>& v) {
  fields_.push_back("." + f + " = " + c_int_array(v));
  return *this;
}
ParamsInit& ParamsInit::raw(const std::string& f, const std::string& t) {
  fields_.push_back("." + f + " = " + t);
  return *this;
}
std::string ParamsInit::str() const {
  std::string s = "{";
  for (size_t i = 0; i < fields_.size(); ++i) s += (i ? ", " : " ") + fields_[i];
  return s + " }";
}

BroadcastPlan plan_broadcast(const Node& n, const Shape& a, const Shape& b, const Shape& out) {
  const size_t r = out.size();
  check_fits_32bit(n, out);
  auto strides_for = [&](const Shape& s) {
    // Right-align s against out; contiguous strides, 0 where s is broadcast.
    std::vector<int64_t> st(r, 0);
    int64_t acc = 1;
    for (size_t k = 0; k < s.size(); ++k) {
      size_t d = s.size() - 1 - k;     // dim in s
      size_t od = r - 1 - k;           // dim in out
      if (s[d] != 1 && s[d] != out[od])
        throw CompileError(n.describe() + ": shapes " + shape_str(a) + " and " + shape_str(b) +
                           " do not broadcast to " + shape_str(out));
      st[od] = s[d] == 1 ? 0 : acc;
      acc *= s[d];
    }
    return st;
  };
  if (a.size() > r || b.size() > r) throw CompileError(n.describe() + ": input rank exceeds output rank");
  std::vector<int64_t> sa = strides_for(a), sb = strides_for(b);
  BroadcastPlan p;
  for (size_t d = 0; d < r; ++d) {
    if (out[d] == 1) continue;  // size-1 dims carry no iteration
    if (!p.shape.empty()) {
      // Merge with the previous kept dim when both inputs step through it contiguously.
      size_t k = p.shape.size() - 1;
      if (p.stride_a[k] == sa[d] * out[d] && p.stride_b[k] == sb[d] * out[d]) {
        p.shape[k] *= out[d];
        p.stride_a[k] = sa[d];
        p.stride_b[k] = sb[d];
        continue;
      }
    }
    p.shape.push_back(out[d]);
    p.stride_a.push_back(sa[d]);
    p.stride_b.push_back(sb[d]);
  }
  if (p.shape.empty()) p.shape = {1}, p.stride_a = {0}, p.stride_b = {0};
  if (shape_elements(out) == 0) p.shape = {0}, p.stride_a = {0}, p.stride_b = {0};
  return p;
}

std::string broadcast_init(const BroadcastPlan& p) {
  return ParamsInit()
      .u("ndim", int64_t(p.shape.size()))
      .ints("shape", p.shape)
      .ints("stride_a", p.stride_a)
      .ints("stride_b", p.stride_b)
      .str();
}

}  // namespace kiln
