#include "fold/evaluate.h"

#include <cmath>
#include <functional>
#include <map>

#include "util/error.h"

namespace kiln {

namespace {

using Eval = std::function<std::vector<ConstantPtr>(const Node&)>;

bool is_int_like(DType t) { return dtype_is_integer(t) || t == DType::Bool; }

// Builds a constant of `dtype` from wide values (int64 for integer types).
ConstantPtr make(DType dtype, const Shape& shape, const std::vector<double>& d, const std::vector<int64_t>& i) {
  if (is_int_like(dtype) && !i.empty()) {
    if (dtype == DType::Int64) return Constant::from_int64s(shape, i);
    std::vector<double> as_d(i.begin(), i.end());
    return Constant::from_doubles(dtype, shape, as_d);
  }
  return Constant::from_doubles(dtype, shape, d);
}

// Re-labels the elements of input 0 with the output's shape (Reshape & co.).
std::vector<ConstantPtr> same_bytes(const Node& n) {
  const auto& c = n.inputs[0]->constant;
  std::vector<uint8_t> bytes(c->data(), c->data() + c->size_bytes());
  return {Constant::from_bytes(c->dtype(), n.outputs[0]->shape, std::move(bytes))};
}

std::vector<ConstantPtr> shape_of(const Node& n) {
  const Shape& s = n.inputs[0]->shape;
  int64_t r = int64_t(s.size());
  int64_t start = n.attr_int("start", 0), end = n.attr_int("end", r);
  if (start < 0) start += r;
  if (end < 0) end += r;
  start = std::clamp<int64_t>(start, 0, r);
  end = std::clamp<int64_t>(end, 0, r);
  std::vector<int64_t> dims;
  for (int64_t i = start; i < end; ++i) dims.push_back(s[size_t(i)]);
  return {Constant::from_int64s({int64_t(dims.size())}, dims)};
}

std::vector<ConstantPtr> size_of(const Node& n) {
  return {Constant::from_int64s({}, {n.inputs[0]->num_elements()})};
}

std::vector<ConstantPtr> cast(const Node& n) {
  const auto& c = n.inputs[0]->constant;
  DType to = n.outputs[0]->dtype;
  if (is_int_like(c->dtype()) && is_int_like(to)) return {make(to, n.outputs[0]->shape, {}, c->to_int64s())};
  std::vector<double> d = c->to_doubles();
  if (is_int_like(to)) {
    std::vector<int64_t> i;
    for (double x : d) i.push_back(to == DType::Bool ? int64_t(x != 0) : int64_t(std::trunc(x)));
    return {make(to, n.outputs[0]->shape, {}, i)};
  }
  return {make(to, n.outputs[0]->shape, d, {})};
}

// Element index of output position `o` in an input broadcast to `out`.
std::vector<int64_t> broadcast_index(const Shape& in, const Shape& out) {
  int64_t total = shape_elements(out);
  std::vector<int64_t> idx(size_t(std::max<int64_t>(total, 0)));
  std::vector<int64_t> stride(out.size(), 0);
  int64_t acc = 1;
  for (size_t k = 0; k < in.size(); ++k) {
    size_t d = in.size() - 1 - k, od = out.size() - 1 - k;
    stride[od] = in[d] == 1 ? 0 : acc;
    acc *= in[d];
  }
  for (int64_t o = 0; o < total; ++o) {
    int64_t rem = o, off = 0;
    for (size_t d = out.size(); d-- > 0;) {
      off += (rem % out[d]) * stride[d];
      rem /= out[d];
    }
    idx[size_t(o)] = off;
  }
  return idx;
}

Eval binary(std::function<double(double, double)> fd, std::function<int64_t(int64_t, int64_t)> fi) {
  return [fd, fi](const Node& n) -> std::vector<ConstantPtr> {
    const auto &a = n.inputs[0]->constant, &b = n.inputs[1]->constant;
    const Shape& out = n.outputs[0]->shape;
    auto ia = broadcast_index(a->shape(), out), ib = broadcast_index(b->shape(), out);
    DType t = n.outputs[0]->dtype;
    if (is_int_like(t)) {
      auto va = a->to_int64s(), vb = b->to_int64s();
      std::vector<int64_t> r(ia.size());
      for (size_t i = 0; i < r.size(); ++i) r[i] = fi(va[size_t(ia[i])], vb[size_t(ib[i])]);
      return {make(t, out, {}, r)};
    }
    auto va = a->to_doubles(), vb = b->to_doubles();
    std::vector<double> r(ia.size());
    for (size_t i = 0; i < r.size(); ++i) r[i] = fd(va[size_t(ia[i])], vb[size_t(ib[i])]);
    return {make(t, out, r, {})};
  };
}

std::vector<ConstantPtr> gather(const Node& n) {
  const auto &data = n.inputs[0]->constant, &ind = n.inputs[1]->constant;
  const Shape& ds = data->shape();
  int64_t r = int64_t(ds.size());
  int64_t axis = n.attr_int("axis", 0);
  if (axis < 0) axis += r;
  if (axis < 0 || axis >= r) throw CompileError(n.describe() + ": axis out of range");
  int64_t outer = 1, inner = 1, dim = ds[size_t(axis)];
  for (int64_t d = 0; d < axis; ++d) outer *= ds[size_t(d)];
  for (int64_t d = axis + 1; d < r; ++d) inner *= ds[size_t(d)];
  auto idx = ind->to_int64s();
  size_t es = dtype_size(data->dtype());
  std::vector<uint8_t> out;
  out.reserve(size_t(outer) * idx.size() * size_t(inner) * es);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k : idx) {
      if (k < 0) k += dim;
      if (k < 0 || k >= dim) throw CompileError(n.describe() + ": index " + std::to_string(k) + " out of range");
      const uint8_t* src = data->data() + (size_t(o * dim + k) * size_t(inner)) * es;
      out.insert(out.end(), src, src + size_t(inner) * es);
    }
  return {Constant::from_bytes(data->dtype(), n.outputs[0]->shape, std::move(out))};
}

std::vector<ConstantPtr> concat(const Node& n) {
  const Shape& out = n.outputs[0]->shape;
  int64_t r = int64_t(out.size());
  int64_t axis = n.attr_int("axis", 0);
  if (axis < 0) axis += r;
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= out[size_t(d)];
  for (int64_t d = axis + 1; d < r; ++d) inner *= out[size_t(d)];
  size_t es = dtype_size(n.outputs[0]->dtype);
  std::vector<uint8_t> bytes;
  for (int64_t o = 0; o < outer; ++o)
    for (const Value* v : n.inputs) {
      size_t chunk = size_t(v->shape[size_t(axis)] * inner) * es;
      const uint8_t* src = v->constant->data() + size_t(o) * chunk;
      bytes.insert(bytes.end(), src, src + chunk);
    }
  return {Constant::from_bytes(n.outputs[0]->dtype, out, std::move(bytes))};
}

std::vector<ConstantPtr> transpose(const Node& n) {
  const auto& c = n.inputs[0]->constant;
  const Shape& s = c->shape();
  size_t r = s.size();
  auto perm = n.attr_ints("perm");
  if (perm.empty())
    for (size_t i = 0; i < r; ++i) perm.push_back(int64_t(r - 1 - i));
  std::vector<int64_t> in_stride(r, 1);
  for (size_t i = r; i-- > 1;) in_stride[i - 1] = in_stride[i] * s[i];
  const Shape& out = n.outputs[0]->shape;
  size_t es = dtype_size(c->dtype());
  int64_t total = shape_elements(out);
  std::vector<uint8_t> bytes(size_t(total) * es);
  for (int64_t o = 0; o < total; ++o) {
    int64_t rem = o, off = 0;
    for (size_t d = r; d-- > 0;) {
      off += (rem % out[d]) * in_stride[size_t(perm[d])];
      rem /= out[d];
    }
    std::copy(c->data() + size_t(off) * es, c->data() + size_t(off + 1) * es, bytes.begin() + int64_t(size_t(o) * es));
  }
  return {Constant::from_bytes(c->dtype(), out, std::move(bytes))};
}

std::vector<ConstantPtr> constant_of_shape(const Node& n) {
  ConstantPtr v = n.attr_tensor("value");
  DType t = v ? v->dtype() : DType::Float32;
  const Shape& out = n.outputs[0]->shape;
  size_t es = dtype_size(t);
  std::vector<uint8_t> bytes(size_t(shape_elements(out)) * es, 0);
  if (v)
    for (size_t i = 0; i < bytes.size(); i += es) std::copy(v->data(), v->data() + es, bytes.begin() + int64_t(i));
  return {Constant::from_bytes(t, out, std::move(bytes))};
}

std::vector<ConstantPtr> range(const Node& n) {
  DType t = n.outputs[0]->dtype;
  int64_t count = n.outputs[0]->num_elements();
  const auto &s = n.inputs[0]->constant, &d = n.inputs[2]->constant;
  if (is_int_like(t)) {
    std::vector<int64_t> r;
    for (int64_t i = 0; i < count; ++i) r.push_back(s->as_int64(0) + i * d->as_int64(0));
    return {make(t, {count}, {}, r)};
  }
  std::vector<double> r;
  for (int64_t i = 0; i < count; ++i) r.push_back(s->as_double(0) + double(i) * d->as_double(0));
  return {make(t, {count}, r, {})};
}

Eval unary(std::function<double(double)> f) {
  return [f](const Node& n) -> std::vector<ConstantPtr> {
    auto v = n.inputs[0]->constant->to_doubles();
    for (auto& x : v) x = f(x);
    return {make(n.outputs[0]->dtype, n.outputs[0]->shape, v, {})};
  };
}

const std::map<std::string, Eval>& evaluators() {
  static const std::map<std::string, Eval> e = {
      {"Shape", shape_of},
      {"Size", size_of},
      {"Identity", same_bytes},
      {"Reshape", same_bytes},
      {"Flatten", same_bytes},
      {"Squeeze", same_bytes},
      {"Unsqueeze", same_bytes},
      {"Cast", cast},
      {"Gather", gather},
      {"Concat", concat},
      {"Transpose", transpose},
      {"ConstantOfShape", constant_of_shape},
      {"Range", range},
      {"Add", binary([](double a, double b) { return a + b; }, [](int64_t a, int64_t b) { return int64_t(uint64_t(a) + uint64_t(b)); })},
      {"Sub", binary([](double a, double b) { return a - b; }, [](int64_t a, int64_t b) { return int64_t(uint64_t(a) - uint64_t(b)); })},
      {"Mul", binary([](double a, double b) { return a * b; }, [](int64_t a, int64_t b) { return int64_t(uint64_t(a) * uint64_t(b)); })},
      {"Div", binary([](double a, double b) { return a / b; },
                     [](int64_t a, int64_t b) { return b == 0 ? 0 : (a == INT64_MIN && b == -1 ? a : a / b); })},
      {"Neg", unary([](double x) { return -x; })},
      {"Sqrt", unary([](double x) { return std::sqrt(x); })},
      {"Reciprocal", unary([](double x) { return 1.0 / x; })},
  };
  return e;
}

}  // namespace

bool can_evaluate_without_inputs(const Node& n) { return n.op_type == "Shape" || n.op_type == "Size"; }

EvalResult evaluate_node(const Node& n, int64_t size_limit) {
  EvalResult r;
  if (!n.domain.empty() && n.domain != "ai.onnx") return r;
  auto it = evaluators().find(n.op_type);
  if (it == evaluators().end()) return r;
  // Integer division by zero is undefined in ONNX: leave it to the runtime op's error.
  if (n.op_type == "Div" && is_int_like(n.outputs[0]->dtype)) {
    auto b = n.inputs[1]->constant->to_int64s();
    for (auto x : b)
      if (x == 0) return r;
  }
  for (const Value* o : n.outputs)
    if (o->dtype == DType::Undefined || dtype_size(o->dtype) == 0) return r;
  uint64_t in_bytes = 0, out_bytes = 0;
  for (const Value* v : n.inputs)
    if (v && v->is_constant()) in_bytes += v->constant->size_bytes();
  for (const Value* v : n.outputs) out_bytes += v->size_bytes();
  if (out_bytes > uint64_t(size_limit) && out_bytes > in_bytes) {
    r.skipped_by_size_limit = true;
    return r;
  }
  r.outputs = it->second(n);
  r.evaluated = true;
  return r;
}

}  // namespace kiln
