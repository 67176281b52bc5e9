#include "eval/evaluate.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>

#include "ir/wide_num.h"
#include "util/error.h"

namespace kiln {

namespace {

using Eval = std::function<std::vector<ConstantPtr>(const Node&)>;

// An evaluator that cannot handle this instance (integer MatMul, ...): the node
// simply stays a runtime op.
struct NotFoldable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// An operand at most this big (elements) is combined lazily with the other one
// instead of allocating the result: reading it again per access stays cheap.
constexpr int64_t kLazyOperandElements = 4096;
constexpr int64_t kBlock = 8192;

const ConstantPtr& in(const Node& n, size_t i) {
  const Value* v = n.input(i);
  if (v == nullptr || !v->constant) throw std::logic_error(n.describe() + ": input " + std::to_string(i) + " not constant");
  return v->constant;
}
const Value& out(const Node& n, size_t i = 0) { return *n.outputs[i]; }

int64_t norm_axis(const Node& n, int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= std::max<int64_t>(rank, 1))
    throw CompileError(n.describe() + ": axis " + std::to_string(axis) + " out of range");
  return axis < 0 ? axis + rank : axis;
}

// ---- element-wise -----------------------------------------------------------

bool is_bool_op(const std::string& op) { return op == "And" || op == "Or" || op == "Xor"; }
bool is_compare(const std::string& op) {
  return op == "Equal" || op == "Less" || op == "Greater" || op == "LessOrEqual" || op == "GreaterOrEqual";
}

template <typename T, typename F>
void apply(WideNum* a, const WideNum* b, int64_t n, T WideNum::*m, F f) {
  for (int64_t k = 0; k < n; ++k) a[k].*m = f(a[k].*m, b[k].*m);
}

template <typename T, typename F>
void compare(WideNum* a, const WideNum* b, int64_t n, T WideNum::*m, F f) {
  for (int64_t k = 0; k < n; ++k) a[k].i = f(a[k].*m, b[k].*m) ? 1 : 0;
}

template <typename T>
void compare_op(const std::string& op, WideNum* a, const WideNum* b, int64_t n, T WideNum::*m) {
  if (op == "Equal") compare(a, b, n, m, [](T x, T y) { return x == y; });
  else if (op == "Less") compare(a, b, n, m, [](T x, T y) { return x < y; });
  else if (op == "Greater") compare(a, b, n, m, [](T x, T y) { return x > y; });
  else if (op == "LessOrEqual") compare(a, b, n, m, [](T x, T y) { return x <= y; });
  else compare(a, b, n, m, [](T x, T y) { return x >= y; });
}

}  // namespace

void wide_binary(const std::string& op, WideKind kind, WideNum* a, const WideNum* b, int64_t n) {
  if (is_compare(op)) {
    if (kind == WideKind::Float) return compare_op(op, a, b, n, &WideNum::f);
    if (kind == WideKind::Int) return compare_op(op, a, b, n, &WideNum::i);
    return compare_op(op, a, b, n, &WideNum::u);
  }
  if (is_bool_op(op)) {
    if (op == "And") apply(a, b, n, &WideNum::i, [](int64_t x, int64_t y) -> int64_t { return x && y; });
    else if (op == "Or") apply(a, b, n, &WideNum::i, [](int64_t x, int64_t y) -> int64_t { return x || y; });
    else apply(a, b, n, &WideNum::i, [](int64_t x, int64_t y) -> int64_t { return (x != 0) != (y != 0); });
    return;
  }
  if (kind == WideKind::Float) {
    if (op == "Add") apply(a, b, n, &WideNum::f, [](double x, double y) { return x + y; });
    else if (op == "Sub") apply(a, b, n, &WideNum::f, [](double x, double y) { return x - y; });
    else if (op == "Mul") apply(a, b, n, &WideNum::f, [](double x, double y) { return x * y; });
    else if (op == "Div") apply(a, b, n, &WideNum::f, [](double x, double y) { return x / y; });
    else if (op == "Pow") apply(a, b, n, &WideNum::f, [](double x, double y) { return std::pow(x, y); });
    else if (op == "Max") apply(a, b, n, &WideNum::f, [](double x, double y) { return std::isnan(x) || std::isnan(y) ? NAN : std::max(x, y); });
    else if (op == "Min") apply(a, b, n, &WideNum::f, [](double x, double y) { return std::isnan(x) || std::isnan(y) ? NAN : std::min(x, y); });
    else if (op == "Mod") apply(a, b, n, &WideNum::f, [](double x, double y) { return std::fmod(x, y); });
    else throw std::logic_error("wide_binary: no float " + op);
    return;
  }
  // Integers: modular arithmetic in 64 bits (the result is wrapped to its dtype by
  // the caller); division truncates toward zero like the C kernels.
  if (kind == WideKind::Int) {
    if (op == "Add") apply(a, b, n, &WideNum::i, [](int64_t x, int64_t y) { return int64_t(uint64_t(x) + uint64_t(y)); });
    else if (op == "Sub") apply(a, b, n, &WideNum::i, [](int64_t x, int64_t y) { return int64_t(uint64_t(x) - uint64_t(y)); });
    else if (op == "Mul") apply(a, b, n, &WideNum::i, [](int64_t x, int64_t y) { return int64_t(uint64_t(x) * uint64_t(y)); });
    else if (op == "Div") apply(a, b, n, &WideNum::i, [](int64_t x, int64_t y) { return y == 0 ? 0 : (x == INT64_MIN && y == -1 ? x : x / y); });
    else if (op == "Mod") apply(a, b, n, &WideNum::i, [](int64_t x, int64_t y) {  // sign of the divisor (fmod=0)
      if (y == 0 || (x == INT64_MIN && y == -1)) return int64_t(0);
      int64_t r = x % y;
      return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r;
    });
    else if (op == "Max") apply(a, b, n, &WideNum::i, [](int64_t x, int64_t y) { return std::max(x, y); });
    else if (op == "Min") apply(a, b, n, &WideNum::i, [](int64_t x, int64_t y) { return std::min(x, y); });
    else if (op == "Pow") apply(a, b, n, &WideNum::i, [](int64_t x, int64_t y) { return int64_t(std::pow(double(x), double(y))); });
    else throw std::logic_error("wide_binary: no int " + op);
    return;
  }
  if (op == "Add") apply(a, b, n, &WideNum::u, [](uint64_t x, uint64_t y) { return x + y; });
  else if (op == "Sub") apply(a, b, n, &WideNum::u, [](uint64_t x, uint64_t y) { return x - y; });
  else if (op == "Mul") apply(a, b, n, &WideNum::u, [](uint64_t x, uint64_t y) { return x * y; });
  else if (op == "Div") apply(a, b, n, &WideNum::u, [](uint64_t x, uint64_t y) { return y == 0 ? 0 : x / y; });
  else if (op == "Mod") apply(a, b, n, &WideNum::u, [](uint64_t x, uint64_t y) { return y == 0 ? 0 : x % y; });
  else if (op == "Max") apply(a, b, n, &WideNum::u, [](uint64_t x, uint64_t y) { return std::max(x, y); });
  else if (op == "Min") apply(a, b, n, &WideNum::u, [](uint64_t x, uint64_t y) { return std::min(x, y); });
  else if (op == "Pow") apply(a, b, n, &WideNum::u, [](uint64_t x, uint64_t y) { return uint64_t(std::pow(double(x), double(y))); });
  else throw std::logic_error("wide_binary: no uint " + op);
}

namespace {

bool commutative(const std::string& op) {
  return op == "Add" || op == "Mul" || op == "Max" || op == "Min" || op == "Equal" || is_bool_op(op);
}

// a op b with numpy broadcasting to `shape`: lazily when one side is small and the
// other already has the result's shape, else into a new wide buffer.
ConstantPtr binary_op(const std::string& op, const ConstantPtr& a, const ConstantPtr& b, DType out_dtype,
                      const Shape& shape) {
  WideKind k = a->kind();
  auto f = [op, k](WideNum* x, const WideNum* y, int64_t n) { wide_binary(op, k, x, y, n); };
  if (a->shape() == shape && (b->is_splat() || b->num_elements() <= kLazyOperandElements) && b->num_elements() < a->num_elements())
    return a->combined(b, out_dtype, f, op);
  if (commutative(op) && b->shape() == shape && (a->is_splat() || a->num_elements() <= kLazyOperandElements) &&
      a->num_elements() < b->num_elements())
    return b->combined(a, out_dtype, f, op);
  if (a->is_splat() && b->is_splat() && shape_elements(shape) > 1) {  // stays a splat: 8 bytes
    WideNum x = a->wide_at(0), y = b->wide_at(0);
    f(&x, &y, 1);
    return Constant::splat(out_dtype, shape, x);
  }
  ConstantPtr va = a->broadcast_to(shape), vb = b->broadcast_to(shape);
  int64_t total = shape_elements(shape);
  return Constant::from_wide(out_dtype, shape, [&](WideNum* dst) {
    std::vector<WideNum> tmp(size_t(std::min(total, kBlock)));
    for (int64_t first = 0; first < total; first += kBlock) {
      int64_t m = std::min(kBlock, total - first);
      va->read_wide(first, m, dst + first);
      vb->read_wide(first, m, tmp.data());
      f(dst + first, tmp.data(), m);
    }
  });
}

Eval binary(const std::string& op) {
  return [op](const Node& n) -> std::vector<ConstantPtr> {
    // The declared output shape (a TFLite model states it) must be the inputs'
    // broadcast: folding writes the inputs into it.
    const Shape s = broadcast_shapes(in(n, 0)->shape(), in(n, 1)->shape(), n.describe());
    if (s != out(n).shape)
      throw CompileError(n.describe() + ": inputs " + shape_str(in(n, 0)->shape()) + " and " +
                         shape_str(in(n, 1)->shape()) + " broadcast to " + shape_str(s) + ", not to the declared " +
                         "output shape " + shape_str(out(n).shape));
    return {binary_op(op, in(n, 0), in(n, 1), out(n).dtype, out(n).shape)};
  };
}

// Max/Min/Sum/Mean with any number of inputs.
Eval variadic(const std::string& op) {
  return [op](const Node& n) -> std::vector<ConstantPtr> {
    const std::string step = op == "Sum" || op == "Mean" ? "Add" : op;
    ConstantPtr acc = in(n, 0);
    for (size_t i = 1; i < n.inputs.size(); ++i) {
      Shape s = out(n).shape;  // intermediate shapes broadcast toward the output's
      acc = binary_op(step, acc->broadcast_to(s), in(n, i), out(n).dtype, s);
    }
    if (op == "Mean") {
      ConstantPtr cnt = Constant::splat(acc->dtype(), {}, acc->kind() == WideKind::Float ? wide_float(double(n.inputs.size())) : wide_int(int64_t(n.inputs.size())));
      acc = binary_op("Div", acc, cnt, out(n).dtype, out(n).shape);
    }
    return {acc->broadcast_to(out(n).shape)};
  };
}

Eval unary_float(const std::string& what, std::function<double(double)> f) {
  return [what, f](const Node& n) -> std::vector<ConstantPtr> {
    const auto& c = in(n, 0);
    if (c->kind() != WideKind::Float) throw NotFoldable(n.describe() + ": cannot fold " + what + " of integers");
    return {c->mapped(out(n).dtype, [f](WideNum* d, int64_t m) {
      for (int64_t k = 0; k < m; ++k) d[k].f = f(d[k].f);
    }, what)};
  };
}

// Unary ops meaningful for every kind.
Eval unary_any(const std::string& what, std::function<double(double)> ff, std::function<int64_t(int64_t)> fi,
               std::function<uint64_t(uint64_t)> fu) {
  return [=](const Node& n) -> std::vector<ConstantPtr> {
    const auto& c = in(n, 0);
    WideKind k = c->kind();
    return {c->mapped(out(n).dtype, [=](WideNum* d, int64_t m) {
      if (k == WideKind::Float) for (int64_t i = 0; i < m; ++i) d[i].f = ff(d[i].f);
      else if (k == WideKind::Int) for (int64_t i = 0; i < m; ++i) d[i].i = fi(d[i].i);
      else for (int64_t i = 0; i < m; ++i) d[i].u = fu(d[i].u);
    }, what)};
  };
}

std::vector<ConstantPtr> clip(const Node& n) {
  const auto& c = in(n, 0);
  WideKind k = c->kind();
  WideNum lo, hi;
  bool has_lo = false, has_hi = false;
  if (n.opset < 11) {
    lo = wide_float(n.attr_float("min", -INFINITY)), hi = wide_float(n.attr_float("max", INFINITY));
    has_lo = has_hi = true;
  } else {
    if (n.input(1)) lo = in(n, 1)->wide_at(0), has_lo = true;
    if (n.input(2)) hi = in(n, 2)->wide_at(0), has_hi = true;
  }
  return {c->mapped(out(n).dtype, [=](WideNum* d, int64_t m) {
    for (int64_t i = 0; i < m; ++i) {
      if (k == WideKind::Float) {
        if (has_lo && d[i].f < lo.f) d[i].f = lo.f;
        if (has_hi && d[i].f > hi.f) d[i].f = hi.f;
      } else if (k == WideKind::Int) {
        if (has_lo) d[i].i = std::max(d[i].i, lo.i);
        if (has_hi) d[i].i = std::min(d[i].i, hi.i);
      } else {
        if (has_lo) d[i].u = std::max(d[i].u, lo.u);
        if (has_hi) d[i].u = std::min(d[i].u, hi.u);
      }
    }
  }, "clip")};
}

std::vector<ConstantPtr> where(const Node& n) {
  const Shape& s = out(n).shape;
  ConstantPtr c = in(n, 0)->broadcast_to(s), x = in(n, 1)->broadcast_to(s), y = in(n, 2)->broadcast_to(s);
  int64_t total = shape_elements(s);
  return {Constant::from_wide(out(n).dtype, s, [&](WideNum* dst) {
    std::vector<WideNum> cb(size_t(std::min(total, kBlock))), yb(cb.size());
    for (int64_t f = 0; f < total; f += kBlock) {
      int64_t m = std::min(kBlock, total - f);
      c->read_wide(f, m, cb.data());
      x->read_wide(f, m, dst + f);
      y->read_wide(f, m, yb.data());
      for (int64_t k = 0; k < m; ++k)
        if (cb[size_t(k)].i == 0) dst[f + k] = yb[size_t(k)];
    }
  })};
}

// ---- shape and data movement -------------------------------------------------

std::vector<ConstantPtr> view_as_output(const Node& n) { return {in(n, 0)->reshaped(out(n).shape)}; }

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

std::vector<ConstantPtr> size_of(const Node& n) { return {Constant::from_int64s({}, {n.inputs[0]->num_elements()})}; }

std::vector<ConstantPtr> cast(const Node& n) { return {in(n, 0)->cast_to(out(n).dtype)}; }

std::vector<ConstantPtr> transpose(const Node& n) {
  const auto& c = in(n, 0);
  size_t r = c->shape().size();
  auto perm = n.attr_ints("perm");
  if (perm.empty())
    for (size_t i = 0; i < r; ++i) perm.push_back(int64_t(r - 1 - i));
  return {c->transposed(perm)};
}

std::vector<ConstantPtr> expand(const Node& n) { return {in(n, 0)->broadcast_to(out(n).shape)}; }

std::vector<ConstantPtr> constant_of_shape(const Node& n) {
  ConstantPtr v = n.attr_tensor("value");
  DType t = out(n).dtype;
  WideNum x = v ? v->wide_at(0) : (wide_kind(t) == WideKind::Float ? wide_float(0.0) : wide_int(0));
  return {Constant::splat(t, out(n).shape, x)};
}

std::vector<ConstantPtr> range(const Node& n) {
  DType t = out(n).dtype;
  int64_t count = out(n).num_elements();
  WideNum s = in(n, 0)->wide_at(0), d = in(n, 2)->wide_at(0);
  WideKind k = wide_kind(t);
  return {Constant::from_wide(t, {count}, [&](WideNum* dst) {
    for (int64_t i = 0; i < count; ++i) {
      if (k == WideKind::Float) dst[i].f = s.f + double(i) * d.f;
      else if (k == WideKind::Int) dst[i].i = s.i + i * d.i;
      else dst[i].u = s.u + uint64_t(i) * d.u;
    }
  })};
}

std::vector<ConstantPtr> gather(const Node& n) {
  const auto &data = in(n, 0), &ind = in(n, 1);
  const Shape& ds = data->shape();
  int64_t r = int64_t(ds.size());
  int64_t axis = norm_axis(n, n.attr_int("axis", 0), r);
  int64_t outer = 1, inner = 1, dim = ds[size_t(axis)];
  for (int64_t d = 0; d < axis; ++d) outer *= ds[size_t(d)];
  for (int64_t d = axis + 1; d < r; ++d) inner *= ds[size_t(d)];
  auto idx = ind->to_int64s();
  for (auto& k : idx) {
    if (k < 0) k += dim;
    if (k < 0 || k >= dim) throw CompileError(n.describe() + ": index " + std::to_string(k) + " out of range");
  }
  // Rows are read straight from the (possibly strided, lazy) data: no full copy.
  return {Constant::from_wide(out(n).dtype, out(n).shape, [&](WideNum* dst) {
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t k : idx) {
        data->read_wide((o * dim + k) * inner, inner, dst);
        dst += inner;
      }
  })};
}

std::vector<ConstantPtr> concat(const Node& n) {
  const Shape& s = out(n).shape;
  int64_t r = int64_t(s.size());
  int64_t axis = norm_axis(n, n.attr_int("axis", 0), r);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= s[size_t(d)];
  for (int64_t d = axis + 1; d < r; ++d) inner *= s[size_t(d)];
  return {Constant::from_wide(out(n).dtype, s, [&](WideNum* dst) {
    for (int64_t o = 0; o < outer; ++o)
      for (size_t i = 0; i < n.inputs.size(); ++i) {
        const auto& c = in(n, i);
        int64_t chunk = c->shape()[size_t(axis)] * inner;
        c->read_wide(o * chunk, chunk, dst);
        dst += chunk;
      }
  })};
}

std::vector<ConstantPtr> tile(const Node& n) {
  const auto& c = in(n, 0);
  const Shape& is = c->shape();
  const Shape& os = out(n).shape;
  auto src = c->wide();
  auto istr = dense_strides(is);
  size_t r = os.size();
  return {Constant::from_wide(out(n).dtype, os, [&](WideNum* dst) {
    std::vector<int64_t> idx(r, 0);
    int64_t total = shape_elements(os);
    for (int64_t o = 0; o < total; ++o) {
      int64_t off = 0;
      for (size_t d = 0; d < r; ++d) off += (idx[d] % is[d]) * istr[d];
      dst[o] = src[size_t(off)];
      for (size_t d = r; d-- > 0;) {
        if (++idx[d] < os[d]) break;
        idx[d] = 0;
      }
    }
  })};
}

// Slice (opset >= 10: starts/ends/axes/steps inputs; before: attributes) as a view.
std::vector<ConstantPtr> slice(const Node& n) {
  const auto& c = in(n, 0);
  const Shape& s = c->shape();
  size_t r = s.size();
  std::vector<int64_t> starts, ends, axes, steps;
  if (n.opset < 10) {
    starts = n.attr_ints("starts"), ends = n.attr_ints("ends"), axes = n.attr_ints("axes");
  } else {
    starts = in(n, 1)->to_int64s(), ends = in(n, 2)->to_int64s();
    if (n.input(3)) axes = in(n, 3)->to_int64s();
    if (n.input(4)) steps = in(n, 4)->to_int64s();
  }
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(int64_t(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  std::vector<int64_t> st(r, 0), sp(r, 1), cnt(s.begin(), s.end());
  for (size_t i = 0; i < axes.size(); ++i) {
    size_t a = size_t(norm_axis(n, axes[i], int64_t(r)));
    int64_t dim = s[a], step = steps[i];
    if (step == 0) throw CompileError(n.describe() + ": slice step is 0");
    // A step longer than the axis takes at most one element: clamped, so no count
    // or stride overflows (INT64_MIN cannot be negated).
    step = std::clamp<int64_t>(step, -std::max<int64_t>(dim, 1), std::max<int64_t>(dim, 1));
    int64_t b = starts[i], e = ends[i];
    if (b < 0) b += dim;
    if (e < 0) e += dim;
    if (step > 0) {
      b = std::clamp<int64_t>(b, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
      cnt[a] = e > b ? (e - b + step - 1) / step : 0;
    } else {
      b = std::clamp<int64_t>(b, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
      cnt[a] = b > e ? (b - e + (-step) - 1) / (-step) : 0;
    }
    st[a] = cnt[a] > 0 ? b : 0;
    sp[a] = step;
  }
  if (cnt != out(n).shape)
    throw CompileError(n.describe() + ": folded slice has shape " + shape_str(cnt) + ", inferred " + shape_str(out(n).shape));
  return {c->sliced(st, sp, cnt)};
}

// ---- reductions -----------------------------------------------------------------

Eval reduce(const std::string& op) {
  return [op](const Node& n) -> std::vector<ConstantPtr> {
    const auto& c = in(n, 0);
    const Shape& s = c->shape();
    int64_t r = int64_t(s.size());
    std::vector<int64_t> axes = n.attr_ints("axes");
    if (n.input(1)) axes = in(n, 1)->to_int64s();
    bool noop = n.attr_int("noop_with_empty_axes", 0) != 0;
    if (axes.empty() && noop) return {c->reshaped(out(n).shape)};
    std::set<int64_t> ax;
    if (axes.empty())
      for (int64_t d = 0; d < r; ++d) ax.insert(d);
    for (auto a : axes) ax.insert(norm_axis(n, a, r));
    // Output index of each input element: strides of the reduced shape, 0 on reduced axes.
    Shape rs = s;
    for (auto a : ax) rs[size_t(a)] = 1;
    auto rstr = dense_strides(rs);
    for (auto a : ax) rstr[size_t(a)] = 0;
    int64_t out_n = shape_elements(rs), total = c->num_elements();
    WideKind k = c->kind();
    bool is_float = k == WideKind::Float;
    std::vector<double> accf(static_cast<size_t>(out_n));
    std::vector<int64_t> acci(static_cast<size_t>(out_n));
    std::vector<bool> first(size_t(out_n), true);
    auto src = c->wide();
    std::vector<int64_t> idx(size_t(r), 0);
    for (int64_t e = 0; e < total; ++e) {
      int64_t o = 0;
      for (int64_t d = 0; d < r; ++d) o += idx[size_t(d)] * rstr[size_t(d)];
      double x = is_float ? src[size_t(e)].f : (k == WideKind::Int ? double(src[size_t(e)].i) : double(src[size_t(e)].u));
      int64_t xi = k == WideKind::Int ? src[size_t(e)].i : int64_t(src[size_t(e)].u);
      double& af = accf[size_t(o)];
      int64_t& ai = acci[size_t(o)];
      bool f = first[size_t(o)];
      first[size_t(o)] = false;
      if (op == "ReduceMax") af = f ? x : std::max(af, x), ai = f ? xi : std::max(ai, xi);
      else if (op == "ReduceMin") af = f ? x : std::min(af, x), ai = f ? xi : std::min(ai, xi);
      else if (op == "ReduceProd") af = (f ? 1.0 : af) * x, ai = int64_t(uint64_t(f ? 1 : ai) * uint64_t(xi));
      else if (op == "ReduceL1") af += std::fabs(x), ai += xi < 0 ? -xi : xi;
      else if (op == "ReduceL2" || op == "ReduceSumSquare") af += x * x, ai += xi * xi;
      else if (op == "ReduceLogSumExp") af += std::exp(x);
      else af += x, ai = int64_t(uint64_t(ai) + uint64_t(xi));  // Sum, Mean, LogSum
      for (int64_t d = r; d-- > 0;) {
        if (++idx[size_t(d)] < s[size_t(d)]) break;
        idx[size_t(d)] = 0;
      }
    }
    double count = out_n ? double(total) / double(out_n) : 0.0;
    return {Constant::from_wide(out(n).dtype, out(n).shape, [&](WideNum* dst) {
      for (int64_t o = 0; o < out_n; ++o) {
        double af = accf[size_t(o)];
        int64_t ai = acci[size_t(o)];
        if (op == "ReduceMean") af /= count, ai = count > 0 ? ai / int64_t(count) : 0;
        else if (op == "ReduceL2") af = std::sqrt(af), ai = int64_t(std::sqrt(double(ai)));
        else if (op == "ReduceLogSum" || op == "ReduceLogSumExp") af = std::log(af);
        if (first[size_t(o)] && (op == "ReduceMax" || op == "ReduceMin"))
          af = op == "ReduceMax" ? -INFINITY : INFINITY;
        if (is_float) dst[o].f = af;
        else if (k == WideKind::Int) dst[o].i = ai;
        else dst[o].u = uint64_t(ai);
      }
    })};
  };
}

// ---- linear algebra ----------------------------------------------------------------

std::vector<ConstantPtr> matmul(const Node& n) {
  ConstantPtr a = in(n, 0), b = in(n, 1);
  if (a->kind() != WideKind::Float) throw NotFoldable(n.describe() + ": folding integer MatMul is not supported");
  Shape as = a->shape(), bs = b->shape();
  bool a1 = as.size() == 1, b1 = bs.size() == 1;
  if (a1) as.insert(as.begin(), 1);
  if (b1) bs.push_back(1);
  int64_t M = as[as.size() - 2], K = as.back(), N = bs.back();
  Shape batch;
  size_t br = std::max(as.size(), bs.size()) - 2;
  for (size_t i = 0; i < br; ++i) {
    int64_t da = i + as.size() - 2 >= br ? as[i + as.size() - 2 - br] : 1;
    int64_t db = i + bs.size() - 2 >= br ? bs[i + bs.size() - 2 - br] : 1;
    batch.push_back(std::max(da, db));
  }
  Shape ab = batch, bb = batch;
  ab.push_back(M), ab.push_back(K), bb.push_back(K), bb.push_back(N);
  auto av = a->reshaped(as)->broadcast_to(ab)->wide(), bv = b->reshaped(bs)->broadcast_to(bb)->wide();
  int64_t nb = shape_elements(batch);
  return {Constant::from_wide(out(n).dtype, out(n).shape, [&](WideNum* dst) {
    for (int64_t t = 0; t < nb; ++t)
      for (int64_t i = 0; i < M; ++i)
        for (int64_t j = 0; j < N; ++j) {
          double acc = 0;
          for (int64_t k = 0; k < K; ++k) acc += av[size_t((t * M + i) * K + k)].f * bv[size_t((t * K + k) * N + j)].f;
          dst[(t * M + i) * N + j].f = acc;
        }
  })};
}

std::vector<ConstantPtr> gemm(const Node& n) {
  ConstantPtr a = in(n, 0), b = in(n, 1);
  if (a->kind() != WideKind::Float) throw NotFoldable(n.describe() + ": folding integer Gemm is not supported");
  if (n.attr_int("transA", 0)) a = a->transposed({1, 0});
  if (n.attr_int("transB", 0)) b = b->transposed({1, 0});
  double alpha = n.attr_float("alpha", 1.0), beta = n.attr_float("beta", 1.0);
  int64_t M = a->shape()[0], K = a->shape()[1], N = b->shape()[1];
  auto av = a->wide(), bv = b->wide();
  std::vector<WideNum> cv;
  if (n.input(2)) cv = in(n, 2)->broadcast_to({M, N})->wide();
  return {Constant::from_wide(out(n).dtype, {M, N}, [&](WideNum* dst) {
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        double acc = 0;
        for (int64_t k = 0; k < K; ++k) acc += av[size_t(i * K + k)].f * bv[size_t(k * N + j)].f;
        dst[i * N + j].f = alpha * acc + (cv.empty() ? 0.0 : beta * cv[size_t(i * N + j)].f);
      }
  })};
}

std::vector<ConstantPtr> softmax(const Node& n) {
  const auto& c = in(n, 0);
  if (c->kind() != WideKind::Float) throw NotFoldable(n.describe() + ": Softmax of integers");
  const Shape& s = c->shape();
  int64_t r = int64_t(s.size());
  int64_t axis = norm_axis(n, n.attr_int("axis", n.opset >= 13 ? -1 : 1), r);
  // opset < 13 flattens to 2-D at `axis`; >= 13 normalizes along `axis` only.
  int64_t outer = 1, len = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= s[size_t(d)];
  if (n.opset >= 13) {
    len = s[size_t(axis)];
    for (int64_t d = axis + 1; d < r; ++d) inner *= s[size_t(d)];
  } else {
    for (int64_t d = axis; d < r; ++d) len *= s[size_t(d)];
  }
  auto v = c->wide();
  return {Constant::from_wide(out(n).dtype, s, [&](WideNum* dst) {
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        double mx = -INFINITY, sum = 0;
        for (int64_t k = 0; k < len; ++k) mx = std::max(mx, v[size_t((o * len + k) * inner + i)].f);
        for (int64_t k = 0; k < len; ++k) sum += std::exp(v[size_t((o * len + k) * inner + i)].f - mx);
        for (int64_t k = 0; k < len; ++k) {
          size_t at = size_t((o * len + k) * inner + i);
          dst[at].f = std::exp(v[at].f - mx) / sum;
        }
      }
  })};
}

// Inference BatchNormalization: y = (x - mean) / sqrt(var + eps) * scale + bias per channel (axis 1).
std::vector<ConstantPtr> batchnorm(const Node& n) {
  const auto& x = in(n, 0);
  if (x->kind() != WideKind::Float || x->shape().size() < 2) throw NotFoldable(n.describe() + ": cannot fold");
  int64_t C = x->shape()[1];
  auto sc = in(n, 1)->wide(), bi = in(n, 2)->wide(), mu = in(n, 3)->wide(), var = in(n, 4)->wide();
  double eps = n.attr_float("epsilon", 1e-5);
  Shape cs(x->shape().size(), 1);
  cs[1] = C;
  std::vector<WideNum> a(static_cast<size_t>(C)), b(static_cast<size_t>(C));
  for (int64_t c = 0; c < C; ++c) {
    a[size_t(c)].f = sc[size_t(c)].f / std::sqrt(var[size_t(c)].f + eps);
    b[size_t(c)].f = bi[size_t(c)].f - mu[size_t(c)].f * a[size_t(c)].f;
  }
  auto A = Constant::from_wide(DType::Float64, cs, a), B = Constant::from_wide(DType::Float64, cs, b);
  auto y = binary_op("Mul", x, A, out(n).dtype, x->shape());
  return {binary_op("Add", y, B, out(n).dtype, x->shape())};
}

const std::map<std::string, Eval>& evaluators() {
  static const std::map<std::string, Eval> e = [] {
    std::map<std::string, Eval> m = {
        {"Shape", shape_of},
        {"Size", size_of},
        {"Identity", view_as_output},
        {"Reshape", view_as_output},
        {"Flatten", view_as_output},
        {"Squeeze", view_as_output},
        {"Unsqueeze", view_as_output},
        {"Cast", cast},
        {"CastLike", cast},
        {"Gather", gather},
        {"Concat", concat},
        {"Transpose", transpose},
        {"Expand", expand},
        {"Tile", tile},
        {"Slice", slice},
        {"Where", where},
        {"ConstantOfShape", constant_of_shape},
        {"Range", range},
        {"Clip", clip},
        {"MatMul", matmul},
        {"Gemm", gemm},
        {"Softmax", softmax},
        {"BatchNormalization", batchnorm},
        {"Neg", unary_any("neg", [](double x) { return -x; }, [](int64_t x) { return int64_t(0 - uint64_t(x)); },
                          [](uint64_t x) { return 0 - x; })},
        {"Abs", unary_any("abs", [](double x) { return std::fabs(x); }, [](int64_t x) { return x < 0 ? int64_t(0 - uint64_t(x)) : x; },
                          [](uint64_t x) { return x; })},
        {"Relu", unary_any("relu", [](double x) { return x < 0 ? 0.0 : x; }, [](int64_t x) { return x < 0 ? 0 : x; },
                           [](uint64_t x) { return x; })},
        {"Sign", unary_any("sign", [](double x) { return double((x > 0) - (x < 0)); },
                           [](int64_t x) { return int64_t((x > 0) - (x < 0)); }, [](uint64_t x) { return uint64_t(x > 0); })},
        {"Not", unary_any("not", [](double x) { return double(x == 0); }, [](int64_t x) { return int64_t(x == 0); },
                          [](uint64_t x) { return uint64_t(x == 0); })},
        {"Sqrt", unary_float("sqrt", [](double x) { return std::sqrt(x); })},
        {"Reciprocal", unary_float("reciprocal", [](double x) { return 1.0 / x; })},
        {"Exp", unary_float("exp", [](double x) { return std::exp(x); })},
        {"Log", unary_float("log", [](double x) { return std::log(x); })},
        {"Sigmoid", unary_float("sigmoid", [](double x) { return 1.0 / (1.0 + std::exp(-x)); })},
        {"Tanh", unary_float("tanh", [](double x) { return std::tanh(x); })},
        {"Floor", unary_float("floor", [](double x) { return std::floor(x); })},
        {"Ceil", unary_float("ceil", [](double x) { return std::ceil(x); })},
        {"Round", unary_float("round", [](double x) { return std::nearbyint(x); })},
        {"Sin", unary_float("sin", [](double x) { return std::sin(x); })},
        {"Cos", unary_float("cos", [](double x) { return std::cos(x); })},
        {"Erf", unary_float("erf", [](double x) { return std::erf(x); })},
        {"Softplus", unary_float("softplus", [](double x) { return std::log1p(std::exp(x)); })},
    };
    for (const char* op : {"Add", "Sub", "Mul", "Div", "Pow", "Mod", "Equal", "Less", "Greater", "LessOrEqual",
                           "GreaterOrEqual", "And", "Or", "Xor"})
      m[op] = binary(op);
    for (const char* op : {"Max", "Min", "Sum", "Mean"}) m[op] = variadic(op);
    for (const char* op : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
                           "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp"})
      m[op] = reduce(op);
    return m;
  }();
  return e;
}

// Nodes whose evaluation would be wrong or undefined, so they stay runtime ops.
bool must_not_fold(const Node& n) {
  const std::string& op = n.op_type;
  // Integer division/modulo by zero is undefined: leave it to the runtime op.
  if ((op == "Div" || op == "Mod") && wide_kind(out(n).dtype) != WideKind::Float) {
    for (auto x : in(n, 1)->to_int64s())
      if (x == 0) return true;
  }
  if (op == "Mod" && wide_kind(out(n).dtype) == WideKind::Float && n.attr_int("fmod", 0) == 0) return true;
  if (op == "LeakyRelu" || op == "Dropout") return true;
  if (op == "BatchNormalization" && n.outputs.size() > 1) return true;
  if ((op == "Pow") && in(n, 0)->kind() != in(n, 1)->kind()) return true;
  return false;
}

}  // namespace

ConstantPtr fold_binary(const std::string& op, const ConstantPtr& a, const ConstantPtr& b, DType out_dtype,
                        const Shape& shape) {
  return binary_op(op, a, b, out_dtype, shape);
}

Shape broadcast_shapes(const Shape& a, const Shape& b, const std::string& what) {
  Shape r(std::max(a.size(), b.size()), 1);
  for (size_t k = 0; k < r.size(); ++k) {
    int64_t da = k < a.size() ? a[a.size() - 1 - k] : 1, db = k < b.size() ? b[b.size() - 1 - k] : 1;
    if (da != db && da != 1 && db != 1)
      throw CompileError(what + ": shapes " + shape_str(a) + " and " + shape_str(b) + " do not broadcast");
    r[r.size() - 1 - k] = da == 1 ? db : da;
  }
  return r;
}

bool can_evaluate_without_inputs(const Node& n) { return n.op_type == "Shape" || n.op_type == "Size"; }

bool has_evaluator(const std::string& op_type) { return evaluators().count(op_type) != 0; }

EvalResult evaluate_node(const Node& n, int64_t size_limit) {
  EvalResult r;
  if (!n.domain.empty() && n.domain != "ai.onnx") return r;
  auto it = evaluators().find(n.op_type);
  if (it == evaluators().end()) return r;
  if (!can_evaluate_without_inputs(n))
    for (const Value* v : n.inputs)
      if (v != nullptr && !v->is_constant()) return r;
  // Shape/Size read their input's shape: it must be known (see Value::shape_known).
  for (const Value* v : n.inputs)
    if (v != nullptr && !v->shape_known) return r;
  // Evaluators build results of the inferred output shape: the pass infers it first.
  for (const Value* o : n.outputs)
    if (o->dtype == DType::Undefined || dtype_size(o->dtype) == 0 || !o->shape_known) return r;
  if (n.outputs.size() != 1) return r;
  if (!can_evaluate_without_inputs(n) && must_not_fold(n)) return r;
  uint64_t in_bytes = 0, out_bytes = 0;
  for (const Value* v : n.inputs)
    if (v && v->is_constant()) in_bytes += v->constant->size_bytes();
  for (const Value* v : n.outputs)
    if (v->shape_known) out_bytes += v->size_bytes();
  if (out_bytes > uint64_t(size_limit) && out_bytes > in_bytes) {
    r.skipped_by_size_limit = true;
    return r;
  }
  try {
    r.outputs = it->second(n);
  } catch (const NotFoldable&) {
    return r;
  }
  for (size_t i = 0; i < r.outputs.size(); ++i)
    if (n.outputs[i]->shape_known &&
        (r.outputs[i]->shape() != n.outputs[i]->shape || r.outputs[i]->dtype() != n.outputs[i]->dtype))
      throw CompileError(n.describe() + ": folded result " + dtype_name(r.outputs[i]->dtype()) +
                         shape_str(r.outputs[i]->shape()) + " does not match the inferred " +
                         dtype_name(n.outputs[i]->dtype) + shape_str(n.outputs[i]->shape));
  r.evaluated = true;
  return r;
}

}  // namespace kiln
