// Shape and Size. Folding normally replaces them by constants (shapes are static
// in Kiln); when it did not (e.g. --no-fold), they lower to a kernel that writes
// the compile-time answer.
#include <algorithm>

#include "lower/lower_util.h"
#include "lower/ops/elementwise_util.h"
#include "util/error.h"

namespace kiln {

namespace {

KernelCall shape_call(const Node& n, const std::vector<int64_t>& values) {
  require_dtype(n, n.outputs.at(0), DType::Int64, "output");
  if (values.size() > 8) throw CompileError(n.describe() + ": more than 8 values (KILN_MAX_DIMS)");
  if (int64_t(values.size()) != n.outputs[0]->num_elements())
    throw CompileError(n.describe() + ": output shape " + shape_str(n.outputs[0]->shape) + " does not hold " +
                       std::to_string(values.size()) + " values");
  KernelCall k;
  k.params_type = "kiln_shape_params_t";
  k.params_init = ParamsInit().u("n", int64_t(values.size())).ints("values", values).str();
  k.call = "kiln_shape_i64(&$params, $out0)";
  return k;
}

KernelCall lower_shape(const Node& n) {
  const Shape& s = elt_input(n, 0)->shape;
  const int64_t r = int64_t(s.size());
  // Opset 15 start/end: negative counts from the back, then clamped to [0, rank].
  auto clamp = [r](int64_t v) { return std::clamp(v < 0 ? v + r : v, int64_t(0), r); };
  const int64_t start = clamp(n.attr_int("start", 0)), end = clamp(n.attr_int("end", r));
  std::vector<int64_t> v;
  for (int64_t d = start; d < end; ++d) v.push_back(s[size_t(d)]);
  return shape_call(n, v);
}

KernelCall lower_size(const Node& n) { return shape_call(n, {elt_input(n, 0)->num_elements()}); }

}  // namespace

void register_shape_lowerings() {
  register_lowering("Shape", lower_shape);
  register_lowering("Size", lower_size);
}

}  // namespace kiln
