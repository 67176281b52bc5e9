// Softmax (both opset forms) and BatchNormalization (inference).
#include "lower/lower_util.h"
#include "lower/ops/ops.h"
#include "util/error.h"

namespace kiln {

namespace {

KernelCall softmax(const Node& n) {
  require_float32(n);
  const Shape& s = n.input(0)->shape;
  const int64_t r = int64_t(s.size());
  check_fits_32bit(n, s);
  int64_t outer = 1, axis_len = 1, inner = 1;
  if (n.opset < 13) {
    // Opset 1-12: the input is coerced to 2-D at `axis` (default 1) and softmax
    // runs over the whole second dimension.
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
  k.call = "kiln_softmax_f32(&$params, $in0, $out0)";
  return k;
}

KernelCall batchnorm(const Node& n) {
  require_float32(n);
  if (n.inputs.size() != 5) throw CompileError(n.describe() + ": expects 5 inputs");
  if (n.attr_int("training_mode", 0) != 0) throw CompileError(n.describe() + ": training_mode is not supported");
  for (size_t i = 1; i < n.outputs.size(); ++i) reject_used_output(n, i, "training statistics");
  const Shape& s = n.input(0)->shape;
  if (s.size() < 2) throw CompileError(n.describe() + ": input must be N x C x ...");
  check_fits_32bit(n, s);
  KernelCall k;
  k.params_type = "kiln_batchnorm_params_t";
  k.params_init = ParamsInit().u("n", s[0]).u("c", s[1]).u("size", shape_elements(Shape(s.begin() + 2, s.end())))
                      .f("epsilon", n.attr_float("epsilon", 1e-5)).str();
  k.call = "kiln_batchnorm_f32(&$params, $in0, $in1, $in2, $in3, $in4, $out0)";
  return k;
}

}  // namespace

void register_normalization_lowerings() {
  register_lowering("Softmax", softmax);
  register_lowering("BatchNormalization", batchnorm);
}

}  // namespace kiln
