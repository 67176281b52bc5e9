// Data layout ops. Reshape, Flatten, Squeeze, Unsqueeze and Identity are views
// (inference Dropout is one too, lowered in misc.cpp): the output is the input's bytes, so they lower to an
// alias and no call. Transpose, Expand, Tile, DepthToSpace and SpaceToDepth are
// one strided copy each (kiln_transpose with computed strides); Concat and Split
// copy contiguous chunks. All of them move raw elements, so they serve every dtype.
#include "lower/lower_util.h"
#include "lower/ops/data_util.h"
#include "lower/ops/ops.h"
#include "util/error.h"
#include "util/quoted.h"

#include <climits>

namespace kiln {

namespace data {

KernelCall strided_copy(const Node& n, int64_t es, const Shape& shape, const std::vector<int64_t>& stride,
                        int64_t offset) {
  std::vector<int64_t> sh, st;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;  // size-1 dims carry no iteration
    if (!sh.empty() && st.back() == stride[d] * shape[d]) {
      sh.back() *= shape[d];
      st.back() = stride[d];
      continue;
    }
    sh.push_back(shape[d]);
    st.push_back(stride[d]);
  }
  if (sh.empty()) sh = {1}, st = {1};
  if (shape_elements(shape) == 0) sh = {0}, st = {1};
  if (sh.size() > 8)
    throw CompileError(n.describe() + ": the copy needs " + std::to_string(sh.size()) + " dimensions (max 8)");
  for (int64_t v : sh)
    if (v > INT32_MAX) throw CompileError(n.describe() + ": dimension too large");
  for (int64_t v : st)
    if (v > INT32_MAX || v < INT32_MIN) throw CompileError(n.describe() + ": stride too large");
  KernelCall k;
  k.params_type = "kiln_transpose_params_t";
  k.params_init = ParamsInit().u("ndim", int64_t(sh.size())).u("elem_size", es).ints("shape", sh)
                      .ints("in_stride", st).str();
  k.call = offset == 0 ? "kiln_transpose(&$params, $in0, $out0)"
                       : "kiln_transpose(&$params, $in0 + " + std::to_string(offset) + ", $out0)";
  return k;
}

}  // namespace data

namespace {

KernelCall view(const Node& n) {
  const Value* x = n.input(0);
  const Value* y = n.outputs.at(0);
  if (!x) throw CompileError(n.describe() + ": missing input");
  if (x->dtype != y->dtype || x->num_elements() != y->num_elements())
    throw CompileError(n.describe() + ": output " + shape_str(y->shape) + " is not a view of input " + shape_str(x->shape));
  KernelCall k;
  k.alias_input = 0;
  return k;
}

KernelCall transpose(const Node& n) {
  const Value* x = n.input(0);
  const size_t r = x->shape.size();
  check_fits_32bit(n, x->shape);
  std::vector<int64_t> perm = n.attr_ints("perm");
  if (perm.empty())
    for (size_t i = 0; i < r; ++i) perm.push_back(int64_t(r - 1 - i));
  if (perm.size() != r) throw CompileError(n.describe() + ": perm has " + std::to_string(perm.size()) + " entries for rank " + std::to_string(r));
  const int64_t es = data::elem_size(n, x->dtype);
  const std::vector<int64_t> in_stride = data::row_major_strides(x->shape);
  std::vector<int64_t> shape, strides;
  std::vector<bool> seen(r, false);
  for (size_t i = 0; i < r; ++i) {
    int64_t p = perm[i];
    if (p < 0 || p >= int64_t(r) || seen[size_t(p)]) throw CompileError(n.describe() + ": perm is not a permutation");
    seen[size_t(p)] = true;
    shape.push_back(x->shape[size_t(p)]);
    strides.push_back(in_stride[size_t(p)]);
  }
  return data::strided_copy(n, es, shape, strides);
}

// Expand: numpy broadcast of the input to the (static) output shape; the shape
// input only determined that shape, so its value is not needed at run time.
KernelCall expand(const Node& n) {
  const Value* x = n.input(0);
  const Shape& out = n.outputs[0]->shape;
  check_fits_32bit(n, out);
  if (x->shape.size() > out.size()) throw CompileError(n.describe() + ": input rank exceeds output rank");
  const std::vector<int64_t> in_stride = data::row_major_strides(x->shape);
  std::vector<int64_t> st(out.size(), 0);
  for (size_t k = 0; k < x->shape.size(); ++k) {
    const size_t d = x->shape.size() - 1 - k, od = out.size() - 1 - k;
    if (x->shape[d] != out[od] && x->shape[d] != 1)
      throw CompileError(n.describe() + ": input " + shape_str(x->shape) + " does not broadcast to " + shape_str(out));
    st[od] = x->shape[d] == 1 ? 0 : in_stride[d];
  }
  return data::strided_copy(n, data::elem_size(n, x->dtype), out, st);
}

// Tile: output dim k (= repeats_k * in_k) is walked as [repeats_k, in_k] with
// strides [0, stride_k]. Repeats follow from the static shapes.
KernelCall tile(const Node& n) {
  const Value* x = n.input(0);
  const Shape& out = n.outputs[0]->shape;
  check_fits_32bit(n, out);
  if (x->shape.size() != out.size()) throw CompileError(n.describe() + ": output rank differs from input rank");
  const std::vector<int64_t> in_stride = data::row_major_strides(x->shape);
  Shape shape;
  std::vector<int64_t> st;
  for (size_t d = 0; d < out.size(); ++d) {
    const int64_t in = x->shape[d];
    if (in == 0 || out[d] == 0) {
      if (out[d] != 0) throw CompileError(n.describe() + ": cannot tile an empty dimension");
      shape = {0}, st = {1};
      break;
    }
    if (out[d] % in != 0) throw CompileError(n.describe() + ": output " + shape_str(out) + " is not a tiling of " + shape_str(x->shape));
    shape.push_back(out[d] / in);
    st.push_back(0);
    shape.push_back(in);
    st.push_back(in_stride[d]);
  }
  return data::strided_copy(n, data::elem_size(n, x->dtype), shape, st);
}

// DepthToSpace / SpaceToDepth: a reshape to 6-D, a transpose, a reshape back; the
// reshapes are free, so this is one strided copy over the 6-D output view.
KernelCall depth_space(const Node& n, bool to_space) {
  const Value* x = n.input(0);
  const Shape& s = x->shape;
  if (s.size() != 4) throw CompileError(n.describe() + ": input must be 4-D (N, C, H, W)");
  check_fits_32bit(n, s);
  const int64_t b = n.attr_int("blocksize", 0);
  if (b <= 0) throw CompileError(n.describe() + ": blocksize must be positive");
  const int64_t N = s[0], C = s[1], H = s[2], W = s[3];
  Shape shape;
  std::vector<int64_t> st;
  if (to_space) {
    if (C % (b * b) != 0) throw CompileError(n.describe() + ": channels not divisible by blocksize^2");
    const int64_t c = C / (b * b);
    const std::string mode = n.attr_string("mode", "DCR");
    // Output viewed as [N, c, H, b1, W, b2].
    if (mode == "DCR") {
      const auto in = data::row_major_strides({N, b, b, c, H, W});
      shape = {N, c, H, b, W, b};
      st = {in[0], in[3], in[4], in[1], in[5], in[2]};
    } else if (mode == "CRD") {
      const auto in = data::row_major_strides({N, c, b, b, H, W});
      shape = {N, c, H, b, W, b};
      st = {in[0], in[1], in[4], in[2], in[5], in[3]};
    } else {
      throw CompileError(n.describe() + ": mode " + in_quotes(mode) + " is not DCR or CRD");
    }
  } else {
    if (H % b != 0 || W % b != 0) throw CompileError(n.describe() + ": spatial size not divisible by blocksize");
    // Input viewed as [N, C, H/b, b1, W/b, b2]; output [N, b1, b2, C, H/b, W/b].
    const auto in = data::row_major_strides({N, C, H / b, b, W / b, b});
    shape = {N, b, b, C, H / b, W / b};
    st = {in[0], in[3], in[5], in[1], in[2], in[4]};
  }
  return data::strided_copy(n, data::elem_size(n, x->dtype), shape, st);
}

// Split: output sizes come from the (static) output shapes, so a `split` input or
// attribute needs no run-time reading.
KernelCall split(const Node& n) {
  const Value* x = n.input(0);
  const int64_t r = int64_t(x->shape.size());
  check_fits_32bit(n, x->shape);
  const int64_t axis = normalize_axis(n, n.attr_int("axis", 0), r);
  if (n.outputs.size() > 64) throw CompileError(n.describe() + ": more than 64 outputs");
  const int64_t es = data::elem_size(n, x->dtype);
  const data::AxisSplit g = data::split_at(x->shape, axis);
  std::vector<int64_t> chunks;
  int64_t total = 0;
  for (const Value* v : n.outputs) {
    if (v->dtype == DType::Undefined || v->shape.size() != x->shape.size())
      throw CompileError(n.describe() + ": every output must be present with the input's rank");
    chunks.push_back(v->shape[size_t(axis)] * g.inner * es);
    total += v->shape[size_t(axis)];
  }
  if (total != g.axis) throw CompileError(n.describe() + ": output sizes do not add up to the split dimension");
  KernelCall k;
  k.params_type = "kiln_split_params_t";
  k.params_init = ParamsInit().u("num_outputs", int64_t(chunks.size())).u("outer", g.outer).ints("chunk_bytes", chunks).str();
  k.call = "kiln_split(&$params, $in0, $outptrs)";
  if (g.outer == 1) {  // every output is one contiguous range of the input: a view
    uint64_t off = 0;
    for (int64_t c : chunks) {
      k.view_offsets.push_back(off);
      off += uint64_t(c);
    }
  }
  return k;
}

KernelCall concat(const Node& n) {
  const Value* y = n.outputs[0];
  const int64_t r = int64_t(y->shape.size());
  const int64_t axis = normalize_axis(n, n.attr_int("axis", r > 0 ? 0 : 0), r);
  if (n.inputs.size() > 64) throw CompileError(n.describe() + ": more than 64 inputs");
  size_t es = dtype_size(y->dtype);
  if (es == 0) throw CompileError(n.describe() + ": dtype " + dtype_name(y->dtype) + " is not supported");
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= y->shape[size_t(d)];
  for (int64_t d = axis + 1; d < r; ++d) inner *= y->shape[size_t(d)];
  std::vector<int64_t> chunks;
  for (const Value* v : n.inputs) {
    if (!v) throw CompileError(n.describe() + ": omitted input");
    require_dtype(n, v, y->dtype, "input");
    chunks.push_back(v->shape.at(size_t(axis)) * inner * int64_t(es));
  }
  KernelCall k;
  k.params_type = "kiln_concat_params_t";
  k.params_init = ParamsInit().u("num_inputs", int64_t(chunks.size())).u("outer", outer).u("elem_size", int64_t(es))
                      .ints("chunk_bytes", chunks).str();
  k.call = "kiln_concat(&$params, $inptrs, $out0)";
  if (outer == 1) {  // every input is one contiguous range of the output: placement
    uint64_t off = 0;
    for (int64_t c : chunks) {
      k.input_offsets.push_back(off);
      off += uint64_t(c);
    }
  }
  return k;
}

}  // namespace

void register_layout_lowerings() {
  for (const char* op : {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity"}) register_lowering(op, view);
  register_lowering("Transpose", transpose);
  register_lowering("Concat", concat);
  register_lowering("Expand", expand);
  register_lowering("Tile", tile);
  register_lowering("DepthToSpace", [](const Node& n) { return depth_space(n, true); });
  register_lowering("SpaceToDepth", [](const Node& n) { return depth_space(n, false); });
  register_lowering("Split", split);
}

}  // namespace kiln
