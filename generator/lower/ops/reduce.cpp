// Reductions: Reduce* (axes as attribute, or as an input from ReduceSum-13 on,
// constant or runtime), ArgMax/ArgMin, CumSum and TopK, for float and integer dtypes.
#include <map>

#include "lower/lower_util.h"
#include "lower/ops/data_util.h"
#include "lower/ops/ops.h"
#include "util/error.h"

namespace kiln {

namespace {

const std::map<std::string, std::string>& reduce_ops() {
  static const std::map<std::string, std::string> m = {
      {"ReduceSum", "KILN_REDUCE_SUM"},         {"ReduceMean", "KILN_REDUCE_MEAN"},
      {"ReduceMax", "KILN_REDUCE_MAX"},         {"ReduceMin", "KILN_REDUCE_MIN"},
      {"ReduceProd", "KILN_REDUCE_PROD"},       {"ReduceL1", "KILN_REDUCE_L1"},
      {"ReduceL2", "KILN_REDUCE_L2"},           {"ReduceLogSum", "KILN_REDUCE_LOG_SUM"},
      {"ReduceLogSumExp", "KILN_REDUCE_LOG_SUM_EXP"}, {"ReduceSumSquare", "KILN_REDUCE_SUM_SQUARE"}};
  return m;
}

KernelCall reduce(const Node& n) {
  const Value* x = n.input(0);
  const Value* y = n.outputs[0];
  require_dtype(n, y, x->dtype, "output");
  const std::string suffix = data::numeric_suffix(n, x->dtype);
  const bool is_float = x->dtype == DType::Float32 || x->dtype == DType::Float64;
  if (!is_float && (n.op_type == "ReduceL2" || n.op_type == "ReduceLogSum" || n.op_type == "ReduceLogSumExp"))
    throw CompileError(n.describe() + ": " + n.op_type + " of integer dtype " + dtype_name(x->dtype) +
                       " is not supported (no exact integer result)");
  check_fits_32bit(n, x->shape);
  Shape s = x->shape;
  if (s.empty()) s = {1};
  const int64_t r = int64_t(s.size());
  // Axes: an input (ReduceSum from opset 13), else the attribute. Empty = all axes,
  // unless noop_with_empty_axes, which makes the op an identity.
  const Value* axes_in = n.input(1);
  std::vector<int64_t> axes;
  bool runtime_axes = false;
  if (axes_in) {
    if (axes_in->dtype != DType::Int64) throw CompileError(n.describe() + ": axes must be int64");
    if (axes_in->is_constant()) axes = axes_in->constant->to_int64s();
    else runtime_axes = axes_in->num_elements() > 0;
  } else {
    axes = n.attr_ints("axes");
  }
  if (!runtime_axes && axes.empty() && n.attr_int("noop_with_empty_axes", 0) != 0) {
    KernelCall k;
    k.alias_input = 0;  // identity: the output is the input's bytes
    return k;
  }
  uint32_t mask = 0;
  if (!runtime_axes) {
    if (axes.empty()) mask = (1u << r) - 1u;
    for (int64_t a : axes) mask |= 1u << normalize_axis(n, a, int64_t(x->shape.size()));
  }
  KernelCall k;
  k.params_type = "kiln_reduce_params_t";
  k.params_init = ParamsInit().raw("op", reduce_ops().at(n.op_type)).u("ndim", r).ints("shape", s).u("axes_mask", mask)
                      .u("num_axes", runtime_axes ? axes_in->num_elements() : 0).u("out_count", y->num_elements()).str();
  k.call = "kiln_reduce_" + suffix + "(&$params, $in0, " + (runtime_axes ? "$in1" : "NULL") + ", $out0)";
  return k;
}

KernelCall argminmax(const Node& n) {
  const Value* x = n.input(0);
  require_dtype(n, n.outputs[0], DType::Int64, "output");
  const std::string suffix = data::numeric_suffix(n, x->dtype, /*bool_as_u8=*/true);
  check_fits_32bit(n, x->shape);
  const int64_t r = int64_t(x->shape.size());
  if (r == 0) throw CompileError(n.describe() + ": input must have rank >= 1");
  const int64_t axis = normalize_axis(n, n.attr_int("axis", 0), r);
  const data::AxisSplit g = data::split_at(x->shape, axis);
  if (g.axis == 0) throw CompileError(n.describe() + ": reduction over an empty axis");
  KernelCall k;
  k.params_type = "kiln_argminmax_params_t";
  k.params_init = ParamsInit().u("outer", g.outer).u("axis", g.axis).u("inner", g.inner)
                      .u("is_min", n.op_type == "ArgMin").u("select_last_index", n.attr_int("select_last_index", 0) != 0)
                      .str();
  k.call = "kiln_argminmax_" + suffix + "(&$params, $in0, $out0)";
  return k;
}

KernelCall cumsum(const Node& n) {
  const Value* x = n.input(0);
  require_dtype(n, n.outputs[0], x->dtype, "output");
  const std::string suffix = data::numeric_suffix(n, x->dtype);
  if (suffix == "i8" || suffix == "u8" || suffix == "i16" || suffix == "u16")
    throw CompileError(n.describe() + ": CumSum of " + dtype_name(x->dtype) + " is not supported");
  check_fits_32bit(n, x->shape);
  const int64_t r = int64_t(x->shape.size());
  if (r == 0) throw CompileError(n.describe() + ": input must have rank >= 1");
  const Value* a = n.input(1);
  if (!a || a->num_elements() != 1 || (a->dtype != DType::Int32 && a->dtype != DType::Int64))
    throw CompileError(n.describe() + ": axis must be one int32 or int64 value");
  int64_t axis = 0;
  if (a->is_constant()) axis = normalize_axis(n, a->constant->as_int64(0), r);
  KernelCall k;
  k.params_type = "kiln_cumsum_params_t";
  k.params_init = ParamsInit().u("ndim", r).ints("shape", x->shape).i("axis", axis)
                      .u("axis_size", int64_t(dtype_size(a->dtype))).u("exclusive", n.attr_int("exclusive", 0) != 0)
                      .u("reverse", n.attr_int("reverse", 0) != 0).str();
  k.call = "kiln_cumsum_" + suffix + "(&$params, $in0, " + (a->is_constant() ? "NULL" : "$in1") + ", $out0)";
  return k;
}

// TopK: k is the planned output size along the axis (the K input, constant or not,
// is checked against it at run time).
KernelCall topk(const Node& n) {
  const Value* x = n.input(0);
  const Value* v = n.outputs.at(0);
  require_dtype(n, v, x->dtype, "output");
  if (n.outputs.size() > 1) require_dtype(n, n.outputs[1], DType::Int64, "output");
  const std::string suffix = data::numeric_suffix(n, x->dtype);
  check_fits_32bit(n, x->shape);
  const int64_t r = int64_t(x->shape.size());
  if (r == 0) throw CompileError(n.describe() + ": input must have rank >= 1");
  const int64_t axis = normalize_axis(n, n.attr_int("axis", -1), r);
  // sorted=0 leaves the order to the implementation; sorted output is one valid answer.
  const data::AxisSplit g = data::split_at(x->shape, axis);
  const int64_t k_out = v->shape.at(size_t(axis));
  std::string k_ptr = "NULL";
  if (n.opset < 10) {
    if (n.attr_int("k", -1) != k_out) throw CompileError(n.describe() + ": attribute k disagrees with the output shape");
  } else {
    const Value* kv = n.input(1);
    if (!kv || kv->dtype != DType::Int64 || kv->num_elements() != 1)
      throw CompileError(n.describe() + ": K must be one int64 value");
    if (kv->is_constant()) {
      if (kv->constant->as_int64(0) != k_out) throw CompileError(n.describe() + ": K disagrees with the output shape");
    } else {
      k_ptr = "$in1";
    }
  }
  KernelCall k;
  k.params_type = "kiln_topk_params_t";
  k.params_init = ParamsInit().u("outer", g.outer).u("axis", g.axis).u("inner", g.inner).u("k", k_out)
                      .u("largest", n.attr_int("largest", 1) != 0).str();
  // The indices output is needed as the kernel's insertion workspace even when unused.
  if (n.outputs.size() > 1 && n.outputs[1]->dtype != DType::Undefined) {
    k.call = "kiln_topk_" + suffix + "(&$params, $in0, " + k_ptr + ", $out0, $out1)";
  } else {
    k.scratch.push_back({"topk_indices", uint64_t(v->num_elements()) * 8u, 8});
    k.call = "kiln_topk_" + suffix + "(&$params, $in0, " + k_ptr + ", $out0, (int64_t*)$scratch0)";
  }
  return k;
}

}  // namespace

void register_reduce_lowerings() {
  for (const auto& [op, _] : reduce_ops()) register_lowering(op, reduce);
  register_lowering("ArgMax", argminmax);
  register_lowering("ArgMin", argminmax);
  register_lowering("CumSum", cumsum);
  register_lowering("TopK", topk);
}

}  // namespace kiln
