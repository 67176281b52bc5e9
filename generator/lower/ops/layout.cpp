// Data layout ops. Reshape, Flatten, Squeeze, Unsqueeze, Identity and Dropout
// (inference) are views: the output is the input's bytes, so they lower to an
// alias and no call. Transpose and Concat move data (any dtype).
#include "lower/lower_util.h"
#include "lower/ops/ops.h"
#include "util/error.h"

namespace kiln {

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

KernelCall dropout(const Node& n) {
  if (n.input(2) && (!n.input(2)->is_constant() || n.input(2)->constant->as_int64(0) != 0))
    throw CompileError(n.describe() + ": training_mode must be a constant false");
  reject_used_output(n, 1, "mask");
  return view(n);
}

KernelCall transpose(const Node& n) {
  const Value* x = n.input(0);
  const size_t r = x->shape.size();
  check_fits_32bit(n, x->shape);
  std::vector<int64_t> perm = n.attr_ints("perm");
  if (perm.empty())
    for (size_t i = 0; i < r; ++i) perm.push_back(int64_t(r - 1 - i));
  if (perm.size() != r) throw CompileError(n.describe() + ": perm has " + std::to_string(perm.size()) + " entries for rank " + std::to_string(r));
  size_t es = dtype_size(x->dtype);
  if (es == 0 || es > 8) throw CompileError(n.describe() + ": dtype " + dtype_name(x->dtype) + " is not supported");
  std::vector<int64_t> in_stride(r, 1);
  for (size_t i = r; i-- > 1;) in_stride[i - 1] = in_stride[i] * x->shape[i];
  std::vector<int64_t> shape, strides;
  std::vector<bool> seen(r, false);
  for (size_t i = 0; i < r; ++i) {
    int64_t p = perm[i];
    if (p < 0 || p >= int64_t(r) || seen[size_t(p)]) throw CompileError(n.describe() + ": perm is not a permutation");
    seen[size_t(p)] = true;
    if (x->shape[size_t(p)] == 1) continue;  // size-1 dims carry no iteration
    shape.push_back(x->shape[size_t(p)]);
    strides.push_back(in_stride[size_t(p)]);
  }
  if (shape.empty()) shape = {1}, strides = {1};
  if (x->num_elements() == 0) shape = {0}, strides = {1};
  KernelCall k;
  k.params_type = "kiln_transpose_params_t";
  k.params_init = ParamsInit().u("ndim", int64_t(shape.size())).u("elem_size", int64_t(es))
                      .ints("shape", shape).ints("in_stride", strides).str();
  k.call = "kiln_transpose(&$params, $in0, $out0)";
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
  return k;
}

}  // namespace

void register_layout_lowerings() {
  for (const char* op : {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity"}) register_lowering(op, view);
  register_lowering("Dropout", dropout);
  register_lowering("Transpose", transpose);
  register_lowering("Concat", concat);
}

}  // namespace kiln
