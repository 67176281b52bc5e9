// Index-driven data movement: Gather, GatherElements, GatherND, OneHot, Trilu.
// All move raw elements (any dtype); index tensors are int32 or int64 and are read
// at run time, with negative indices wrapped and out-of-range ones reported by the
// kernel as an error status.
#include "lower/lower_util.h"
#include "lower/ops/data_util.h"
#include "lower/ops/ops.h"
#include "util/error.h"

#include <algorithm>

namespace kiln {

namespace {

KernelCall gather(const Node& n) {
  const Value* x = n.input(0);
  const Value* idx = n.input(1);
  require_dtype(n, n.outputs[0], x->dtype, "output");
  check_fits_32bit(n, x->shape);
  check_fits_32bit(n, n.outputs[0]->shape);
  const int64_t r = int64_t(x->shape.size());
  if (r == 0) throw CompileError(n.describe() + ": data must have rank >= 1");
  const int64_t axis = normalize_axis(n, n.attr_int("axis", 0), r);
  const data::AxisSplit g = data::split_at(x->shape, axis);
  const int64_t es = data::elem_size(n, x->dtype);
  KernelCall k;
  k.params_type = "kiln_gather_params_t";
  k.params_init = ParamsInit().u("outer", g.outer).u("axis_len", g.axis).u("num_indices", idx->num_elements())
                      .u("inner_bytes", g.inner * es).u("index_size", data::index_size(n, 1)).str();
  k.call = "kiln_gather(&$params, $in0, $in1, $out0)";
  return k;
}

KernelCall gather_elements(const Node& n) {
  const Value* x = n.input(0);
  const Value* idx = n.input(1);
  require_dtype(n, n.outputs[0], x->dtype, "output");
  check_fits_32bit(n, x->shape);
  check_fits_32bit(n, idx->shape);
  const int64_t r = int64_t(x->shape.size());
  if (r == 0 || int64_t(idx->shape.size()) != r)
    throw CompileError(n.describe() + ": data and indices must have the same rank >= 1");
  const int64_t axis = normalize_axis(n, n.attr_int("axis", 0), r);
  KernelCall k;
  k.params_type = "kiln_gather_elements_params_t";
  k.params_init = ParamsInit().u("ndim", r).u("axis", axis).u("elem_size", data::elem_size(n, x->dtype))
                      .u("index_size", data::index_size(n, 1)).ints("idx_shape", idx->shape)
                      .ints("data_stride", data::row_major_strides(x->shape)).i("axis_len", x->shape[size_t(axis)])
                      .u("data_count", x->num_elements()).str();
  k.call = "kiln_gather_elements(&$params, $in0, $in1, $out0)";
  return k;
}

KernelCall gather_nd(const Node& n) {
  const Value* x = n.input(0);
  const Value* idx = n.input(1);
  require_dtype(n, n.outputs[0], x->dtype, "output");
  check_fits_32bit(n, x->shape);
  check_fits_32bit(n, idx->shape);
  const Shape& s = x->shape;
  const Shape& q = idx->shape;
  const int64_t b = n.attr_int("batch_dims", 0);
  if (q.empty()) throw CompileError(n.describe() + ": indices must have rank >= 1");
  const int64_t kk = q.back();
  if (b < 0 || b >= int64_t(q.size()) || b + kk > int64_t(s.size()) || kk < 0 || kk > 8)
    throw CompileError(n.describe() + ": unsupported batch_dims / index depth");
  int64_t batch = 1, tuples = 1, slice = 1;
  for (int64_t d = 0; d < b; ++d) batch *= s[size_t(d)];
  for (size_t d = size_t(b); d + 1 < q.size(); ++d) tuples *= q[d];
  for (size_t d = size_t(b + kk); d < s.size(); ++d) slice *= s[d];
  Shape dims(s.begin() + b, s.begin() + b + kk);
  std::vector<int64_t> strides = data::row_major_strides(dims);
  const int64_t es = data::elem_size(n, x->dtype);
  int64_t per_batch = 1;
  for (size_t d = size_t(b); d < s.size(); ++d) per_batch *= s[d];
  KernelCall k;
  k.params_type = "kiln_gather_nd_params_t";
  k.params_init = ParamsInit().u("batch", batch).u("tuples", tuples).u("k", kk).u("slice_bytes", slice * es)
                      .u("batch_bytes", per_batch * es).ints("dims", data::nonempty(dims))
                      .ints("strides", data::nonempty(strides)).u("index_size", data::index_size(n, 1))
                      .u("elem_size", es).u("data_count", x->num_elements()).str();
  k.call = "kiln_gather_nd(&$params, $in0, $in1, $out0)";
  return k;
}

KernelCall onehot(const Node& n) {
  const Value* idx = n.input(0);
  const Value* vals = n.input(2);
  const Value* y = n.outputs[0];
  if (!vals || vals->num_elements() != 2) throw CompileError(n.describe() + ": values must hold [off, on]");
  require_dtype(n, vals, y->dtype, "values");
  check_fits_32bit(n, y->shape);
  const int64_t r = int64_t(y->shape.size());
  const int64_t axis = normalize_axis(n, n.attr_int("axis", -1), r);
  const data::AxisSplit g = data::split_at(y->shape, axis);
  std::string type;
  switch (idx->dtype) {
    case DType::Int32: type = "KILN_INDEX_I32"; break;
    case DType::Int64: type = "KILN_INDEX_I64"; break;
    case DType::Float32: type = "KILN_INDEX_F32"; break;
    case DType::Float64: type = "KILN_INDEX_F64"; break;
    case DType::Int8: type = "KILN_INDEX_I8"; break;
    case DType::UInt8: type = "KILN_INDEX_U8"; break;
    case DType::Int16: type = "KILN_INDEX_I16"; break;
    case DType::UInt16: type = "KILN_INDEX_U16"; break;
    case DType::UInt32: type = "KILN_INDEX_U32"; break;
    case DType::UInt64: type = "KILN_INDEX_U64"; break;
    default: throw CompileError(n.describe() + ": indices of dtype " + dtype_name(idx->dtype) + " are not supported");
  }
  // The depth input only fixed the output shape; a constant one must agree with it.
  const Value* depth = n.input(1);
  if (depth && depth->is_constant() && int64_t(depth->constant->as_double(0)) != g.axis)
    throw CompileError(n.describe() + ": depth disagrees with the output shape");
  KernelCall k;
  k.params_type = "kiln_onehot_params_t";
  k.params_init = ParamsInit().u("outer", g.outer).u("depth", g.axis).u("inner", g.inner)
                      .u("elem_size", data::elem_size(n, y->dtype)).raw("index_type", type).str();
  k.call = "kiln_onehot(&$params, $in0, $in2, $out0)";
  return k;
}

KernelCall trilu(const Node& n) {
  const Value* x = n.input(0);
  require_dtype(n, n.outputs[0], x->dtype, "output");
  const Shape& s = x->shape;
  if (s.size() < 2) throw CompileError(n.describe() + ": input must have rank >= 2");
  check_fits_32bit(n, s);
  int64_t batch = 1;
  for (size_t d = 0; d + 2 < s.size(); ++d) batch *= s[d];
  const Value* kv = n.input(1);
  int64_t kval = 0;
  std::string k_ptr = "NULL";
  if (kv) {
    if (kv->dtype != DType::Int64 || kv->num_elements() != 1) throw CompileError(n.describe() + ": k must be one int64");
    if (kv->is_constant()) kval = kv->constant->as_int64(0);
    else k_ptr = "$in1";
  }
  kval = std::max<int64_t>(std::min<int64_t>(kval, int64_t(1) << 32), -(int64_t(1) << 32));
  KernelCall k;
  k.params_type = "kiln_trilu_params_t";
  k.params_init = ParamsInit().u("batch", batch).u("rows", s[s.size() - 2]).u("cols", s.back())
                      .u("elem_size", data::elem_size(n, x->dtype)).u("upper", n.attr_int("upper", 1) != 0)
                      .i("k", kval).str();
  k.call = "kiln_trilu(&$params, $in0, " + k_ptr + ", $out0)";
  return k;
}

}  // namespace

void register_indexing_lowerings() {
  register_lowering("Gather", gather);
  register_lowering("GatherElements", gather_elements);
  register_lowering("GatherND", gather_nd);
  register_lowering("OneHot", onehot);
  register_lowering("Trilu", trilu);
}

}  // namespace kiln
