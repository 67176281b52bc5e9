// Slice. With starts/ends/axes/steps known at compile time (attributes before
// opset 10, or constant inputs) it is one strided copy from an offset, with
// negative strides for negative steps. When they are runtime tensors the kernel
// (kiln_slice) clamps them itself and checks they give the planned output shape.
#include "lower/lower_util.h"
#include "lower/ops/data_util.h"
#include "lower/ops/ops.h"
#include "util/error.h"

#include <algorithm>

namespace kiln {

namespace {

KernelCall slice(const Node& n) {
  const Value* x = n.input(0);
  const Shape& s = x->shape;
  const Shape& out = n.outputs[0]->shape;
  const int64_t r = int64_t(s.size());
  check_fits_32bit(n, s);
  const int64_t es = data::elem_size(n, x->dtype);
  if (r == 0) throw CompileError(n.describe() + ": cannot slice a scalar");
  std::vector<int64_t> starts, ends, axes, steps;
  bool known = true;
  if (n.opset < 10) {
    starts = n.attr_ints("starts");
    ends = n.attr_ints("ends");
    axes = n.attr_ints("axes");
  } else {
    for (size_t i = 1; i < 5; ++i)
      if (n.input(i) && !n.input(i)->is_constant()) known = false;
    if (known) {
      starts = n.input(1)->constant->to_int64s();
      ends = n.input(2)->constant->to_int64s();
      if (n.input(3)) axes = n.input(3)->constant->to_int64s();
      if (n.input(4)) steps = n.input(4)->constant->to_int64s();
    }
  }
  if (!known) {
    const int64_t num = n.input(1)->num_elements();
    for (size_t i = 2; i < 5; ++i)
      if (n.input(i) && n.input(i)->num_elements() != num)
        throw CompileError(n.describe() + ": starts/ends/axes/steps differ in length");
    if (num > r) throw CompileError(n.describe() + ": more slice entries than dimensions");
    KernelCall k;
    k.params_type = "kiln_slice_params_t";
    k.params_init = ParamsInit().u("ndim", r).u("elem_size", es).u("index_size", data::index_size(n, 1)).u("num", num)
                        .ints("in_shape", s).ints("out_shape", out).str();
    k.call = "kiln_slice(&$params, $in0, $in1, $in2, " + in_or_null(n, 3) + ", " + in_or_null(n, 4) + ", $out0)";
    return k;
  }
  if (starts.size() != ends.size() || (!axes.empty() && axes.size() != starts.size()) ||
      (!steps.empty() && steps.size() != starts.size()))
    throw CompileError(n.describe() + ": starts/ends/axes/steps differ in length");
  std::vector<int64_t> start(size_t(r), 0), step(size_t(r), 1), len(s.begin(), s.end());
  std::vector<bool> seen(size_t(r), false);
  for (size_t i = 0; i < starts.size(); ++i) {
    const int64_t a = normalize_axis(n, axes.empty() ? int64_t(i) : axes[i], r);
    if (seen[size_t(a)]) throw CompileError(n.describe() + ": axis repeated");
    seen[size_t(a)] = true;
    int64_t st = steps.empty() ? 1 : steps[i];
    if (st == 0) throw CompileError(n.describe() + ": step 0");
    const int64_t dim = s[size_t(a)];
    // A step longer than the axis takes at most one element, as the axis' own
    // length would: clamped, so no count or stride below can overflow (INT64_MIN).
    st = std::clamp<int64_t>(st, -std::max<int64_t>(dim, 1), std::max<int64_t>(dim, 1));
    int64_t b = starts[i], e = ends[i];
    if (b < 0) b += dim;
    if (e < 0) e += dim;
    if (st > 0) {
      b = std::clamp<int64_t>(b, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
      len[size_t(a)] = e > b ? (e - b + st - 1) / st : 0;
    } else {
      b = std::clamp<int64_t>(b, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
      len[size_t(a)] = b > e ? (b - e - st - 1) / -st : 0;
    }
    start[size_t(a)] = b;
    step[size_t(a)] = st;
  }
  if (Shape(len.begin(), len.end()) != out)
    throw CompileError(n.describe() + ": slice gives " + shape_str(Shape(len.begin(), len.end())) +
                       " but the output is declared " + shape_str(out));
  const std::vector<int64_t> in_stride = data::row_major_strides(s);
  std::vector<int64_t> st(static_cast<size_t>(r), 0);
  int64_t offset = 0;
  for (size_t d = 0; d < size_t(r); ++d) {
    if (len[d] > 0) offset += start[d] * in_stride[d];
    st[d] = step[d] * in_stride[d];
  }
  if (shape_elements(out) == 0) offset = 0;
  KernelCall k = data::strided_copy(n, es, out, st, offset);
  // The result is one contiguous range of the input when every dim of size > 1
  // steps by the output's own row-major stride: then it is a view at `offset`.
  bool contiguous = true;
  int64_t row = 1;
  for (size_t d = size_t(r); d-- > 0;) {
    if (out[d] > 1 && st[d] != row) contiguous = false;
    row *= out[d];
  }
  if (contiguous) k.view_offsets = {uint64_t(offset * es)};
  return k;
}

}  // namespace

void register_slice_lowerings() { register_lowering("Slice", slice); }

}  // namespace kiln
