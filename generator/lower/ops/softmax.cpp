// Softmax, LogSoftmax and Hardmax in both opset forms: before opset 13 the input is
// coerced to 2-D at `axis` (default 1) and the op runs over the whole second
// dimension; from opset 13 it runs over the single dimension `axis` (default -1).
#include "lower/lower_util.h"
#include "lower/ops/ops.h"
#include "util/error.h"

namespace kiln {

namespace {

KernelCall softmax_family(const Node& n, const std::string& kernel) {
  require_float32(n);
  const Shape& s = n.input(0)->shape;
  const int64_t r = int64_t(s.size());
  check_fits_32bit(n, s);
  int64_t outer = 1, axis_len = 1, inner = 1;
  if (n.opset < 13) {
    const int64_t axis = r == 0 ? 0 : normalize_axis(n, n.attr_int("axis", 1), r);
    for (int64_t d = 0; d < r; ++d) (d < axis ? outer : axis_len) *= s[size_t(d)];
  } else {
    const int64_t axis = r == 0 ? 0 : normalize_axis(n, n.attr_int("axis", -1), r);
    for (int64_t d = 0; d < r; ++d) {
      if (d < axis) outer *= s[size_t(d)];
      else if (d == axis) axis_len = s[size_t(d)];
      else inner *= s[size_t(d)];
    }
  }
  KernelCall k;
  k.params_type = "kiln_softmax_params_t";
  k.params_init = ParamsInit().u("outer", outer).u("axis", axis_len).u("inner", inner).str();
  k.call = kernel + "(&$params, $in0, $out0)";
  return k;
}

}  // namespace

void register_softmax_lowerings() {
  register_lowering("Softmax", [](const Node& n) { return softmax_family(n, "kiln_softmax_f32"); });
  register_lowering("LogSoftmax", [](const Node& n) { return softmax_family(n, "kiln_logsoftmax_f32"); });
  register_lowering("Hardmax", [](const Node& n) { return softmax_family(n, "kiln_hardmax_f32"); });
}

}  // namespace kiln
