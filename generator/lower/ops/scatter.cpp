// ScatterElements (and the older Scatter), ScatterND: the output starts as a copy
// of data (in place when the bufferizer lets out share data's buffer) and updates
// are written or reduced (add, mul, max, min) at runtime indices, in index order.
#include "lower/lower_util.h"
#include "lower/ops/data_util.h"
#include "lower/ops/ops.h"
#include "util/error.h"
#include "util/quoted.h"

namespace kiln {

namespace {

std::string reduction(const Node& n, DType t) {
  const std::string r = n.attr_string("reduction", "none");
  std::string c;
  if (r == "none") c = "KILN_SCATTER_NONE";
  else if (r == "add") c = "KILN_SCATTER_ADD";
  else if (r == "mul") c = "KILN_SCATTER_MUL";
  else if (r == "max") c = "KILN_SCATTER_MAX";
  else if (r == "min") c = "KILN_SCATTER_MIN";
  else throw CompileError(n.describe() + ": reduction " + in_quotes(r) + " is not supported");
  if (t == DType::Bool && r != "none") throw CompileError(n.describe() + ": reduction " + in_quotes(r) + " on bool");
  return c;
}

KernelCall scatter_elements(const Node& n) {
  const Value* x = n.input(0);
  const Value* idx = n.input(1);
  const Value* upd = n.input(2);
  if (!upd) throw CompileError(n.describe() + ": updates input is required");
  require_dtype(n, n.outputs[0], x->dtype, "output");
  require_dtype(n, upd, x->dtype, "updates");
  const std::string suffix = data::numeric_suffix(n, x->dtype, /*bool_as_u8=*/true);
  check_fits_32bit(n, x->shape);
  check_fits_32bit(n, idx->shape);
  const int64_t r = int64_t(x->shape.size());
  if (r == 0 || int64_t(idx->shape.size()) != r || upd->shape != idx->shape)
    throw CompileError(n.describe() + ": data, indices and updates must have the same rank >= 1 (indices and updates the same shape)");
  const int64_t axis = normalize_axis(n, n.attr_int("axis", 0), r);
  KernelCall k;
  k.params_type = "kiln_gather_elements_params_t";
  k.params_init = ParamsInit().u("ndim", r).u("axis", axis).u("elem_size", data::elem_size(n, x->dtype))
                      .u("index_size", data::index_size(n, 1)).ints("idx_shape", idx->shape)
                      .ints("data_stride", data::row_major_strides(x->shape)).i("axis_len", x->shape[size_t(axis)])
                      .u("data_count", x->num_elements()).raw("reduction", reduction(n, x->dtype)).str();
  k.call = "kiln_scatter_elements_" + suffix + "(&$params, $in0, $in1, $in2, $out0)";
  return k;
}

KernelCall scatter_nd(const Node& n) {
  const Value* x = n.input(0);
  const Value* idx = n.input(1);
  const Value* upd = n.input(2);
  if (!upd) throw CompileError(n.describe() + ": updates input is required");
  require_dtype(n, n.outputs[0], x->dtype, "output");
  require_dtype(n, upd, x->dtype, "updates");
  const std::string suffix = data::numeric_suffix(n, x->dtype, /*bool_as_u8=*/true);
  check_fits_32bit(n, x->shape);
  check_fits_32bit(n, idx->shape);
  const Shape& s = x->shape;
  const Shape& q = idx->shape;
  if (q.empty()) throw CompileError(n.describe() + ": indices must have rank >= 1");
  const int64_t kk = q.back();
  if (kk < 1 || kk > int64_t(s.size())) throw CompileError(n.describe() + ": index depth out of range");
  int64_t tuples = 1, slice = 1;
  for (size_t d = 0; d + 1 < q.size(); ++d) tuples *= q[d];
  for (size_t d = size_t(kk); d < s.size(); ++d) slice *= s[d];
  if (upd->num_elements() != tuples * slice) throw CompileError(n.describe() + ": updates shape does not match");
  Shape dims(s.begin(), s.begin() + kk);
  const int64_t es = data::elem_size(n, x->dtype);
  KernelCall k;
  k.params_type = "kiln_gather_nd_params_t";
  k.params_init = ParamsInit().u("batch", 1).u("tuples", tuples).u("k", kk).u("slice_bytes", slice * es)
                      .u("batch_bytes", x->num_elements() * es).ints("dims", dims)
                      .ints("strides", data::row_major_strides(dims)).u("index_size", data::index_size(n, 1))
                      .u("elem_size", es).u("data_count", x->num_elements()).raw("reduction", reduction(n, x->dtype))
                      .str();
  k.call = "kiln_scatter_nd_" + suffix + "(&$params, $in0, $in1, $in2, $out0)";
  return k;
}

}  // namespace

void register_scatter_lowerings() {
  register_lowering("ScatterElements", scatter_elements);
  register_lowering("Scatter", scatter_elements);
  register_lowering("ScatterND", scatter_nd);
}

}  // namespace kiln
