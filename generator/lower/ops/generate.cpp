// Ops that generate data from (possibly runtime) scalars: ConstantOfShape and Range,
// when folding could not replace them by constants. Their output shapes are static
// (planned at import), so the kernels only fill values; Range re-derives its count
// from the runtime scalars and fails if it differs from the planned one.
// (Ops whose output shape depends on the input values, NonZero and Unique, are in
// selection.cpp.)
#include <cstring>

#include "lower/lower_util.h"
#include "lower/ops/data_util.h"
#include "lower/ops/ops.h"
#include "util/error.h"

namespace kiln {

namespace {

KernelCall constant_of_shape(const Node& n) {
  const Value* y = n.outputs[0];
  const int64_t es = data::elem_size(n, y->dtype);
  check_fits_32bit(n, y->shape);
  uint8_t value[8] = {0};
  if (ConstantPtr v = n.attr_tensor("value")) {
    if (v->num_elements() != 1 || v->dtype() != y->dtype)
      throw CompileError(n.describe() + ": value must be one element of the output dtype");
    std::memcpy(value, v->data(), size_t(es));
  }
  KernelCall k;
  k.params_type = "kiln_fill_params_t";
  k.params_init = ParamsInit().u("count", y->num_elements()).u("elem_size", es)
                      .ints("value", std::vector<int64_t>(value, value + 8)).str();
  k.call = "kiln_fill(&$params, $out0)";
  return k;
}

KernelCall range(const Node& n) {
  const Value* y = n.outputs[0];
  for (size_t i = 0; i < 3; ++i) {
    if (!n.input(i) || n.input(i)->num_elements() != 1) throw CompileError(n.describe() + ": start, limit and delta must be scalars");
    require_dtype(n, n.input(i), y->dtype, "input");
  }
  if (y->shape.size() != 1) throw CompileError(n.describe() + ": output must be 1-D");
  check_fits_32bit(n, y->shape);
  std::string suffix;
  switch (y->dtype) {
    case DType::Float32: suffix = "f32"; break;
    case DType::Float64: suffix = "f64"; break;
    case DType::Int16: suffix = "i16"; break;
    case DType::Int32: suffix = "i32"; break;
    case DType::Int64: suffix = "i64"; break;
    default: throw CompileError(n.describe() + ": dtype " + dtype_name(y->dtype) + " is not supported");
  }
  KernelCall k;
  k.params_type = "kiln_range_params_t";
  k.params_init = ParamsInit().u("count", y->shape[0]).str();
  k.call = "kiln_range_" + suffix + "(&$params, $in0, $in1, $in2, $out0)";
  return k;
}

}  // namespace

void register_generate_lowerings() {
  register_lowering("ConstantOfShape", constant_of_shape);
  register_lowering("Range", range);
}

}  // namespace kiln
