// BatchNormalization (inference) and the other normalizations (Softmax is in softmax.cpp).
#include "lower/lower_util.h"
#include "lower/ops/ops.h"
#include "util/error.h"

namespace kiln {

namespace {

// Row-major element strides of a shape.
std::vector<int64_t> contiguous_strides(const Shape& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (size_t d = s.size(); d-- > 1;) st[d - 1] = st[d] * s[d];
  return st;
}

// C99 has no empty initializer lists; an unused array field gets one zero.
std::vector<int64_t> nonempty(std::vector<int64_t> v) {
  if (v.empty()) v.push_back(0);
  return v;
}

// "$in3", or NULL when input i is absent (trailing omitted inputs are dropped at import).
// "$out1", or NULL when output i was not requested.
std::string out_or_null(const Node& n, size_t i) {
  return i < n.outputs.size() && n.outputs[i]->dtype != DType::Undefined ? "$out" + std::to_string(i) : "NULL";
}

// A per-channel parameter (scale, bias, mean, var) must hold exactly C values.
void require_per_channel(const Node& n, size_t i, int64_t c, const char* what) {
  const Value* v = n.input(i);
  if (v == nullptr) throw CompileError(n.describe() + ": input " + std::to_string(i) + " (" + what + ") is required");
  if (v->num_elements() != c || v->shape.size() != 1)
    throw CompileError(n.describe() + ": " + what + " has shape " + shape_str(v->shape) + "; expected [" +
                       std::to_string(c) + "] (one value per channel)");
}

// BatchNormalization: inference form, or training_mode 1 (batch statistics, running
// statistics updated with momentum).
KernelCall batchnorm(const Node& n) {
  require_float32(n);
  if (n.inputs.size() != 5) throw CompileError(n.describe() + ": expects 5 inputs");
  const bool training = n.opset >= 14 && n.attr_int("training_mode", 0) != 0;
  // Before opset 14 extra outputs meant training statistics in another form.
  if (!training)
    for (size_t i = 1; i < n.outputs.size(); ++i) reject_used_output(n, i, "training statistics");
  if (n.opset < 9 && n.attr_int("spatial", 1) != 1)
    throw CompileError(n.describe() + ": spatial=0 (per-element statistics) is not supported");
  const Shape& s = n.input(0)->shape;
  if (s.size() < 2) throw CompileError(n.describe() + ": input must be N x C x ...");
  check_fits_32bit(n, s);
  require_per_channel(n, 1, s[1], "scale");
  require_per_channel(n, 2, s[1], "B");
  require_per_channel(n, 3, s[1], "input_mean");
  require_per_channel(n, 4, s[1], "input_var");
  KernelCall k;
  if (training) {
    k.params_type = "kiln_batchnorm_training_params_t";
    k.params_init = ParamsInit().u("n", s[0]).u("c", s[1]).u("size", shape_elements(Shape(s.begin() + 2, s.end())))
                        .f("epsilon", n.attr_float("epsilon", 1e-5)).f("momentum", n.attr_float("momentum", 0.9)).str();
    k.call = "kiln_batchnorm_training_f32(&$params, $in0, $in1, $in2, $in3, $in4, $out0, " + out_or_null(n, 1) +
             ", " + out_or_null(n, 2) + ")";
    return k;
  }
  k.params_type = "kiln_batchnorm_params_t";
  k.params_init = ParamsInit().u("n", s[0]).u("c", s[1]).u("size", shape_elements(Shape(s.begin() + 2, s.end())))
                      .f("epsilon", n.attr_float("epsilon", 1e-5)).str();
  k.call = "kiln_batchnorm_f32(&$params, $in0, $in1, $in2, $in3, $in4, $out0)";
  return k;
}

// InstanceNormalization (opset 6): per (n, c) plane statistics.
KernelCall instancenorm(const Node& n) {
  require_float32(n);
  const Shape& s = n.input(0)->shape;
  if (s.size() < 2) throw CompileError(n.describe() + ": input must be N x C x ...");
  check_fits_32bit(n, s);
  require_per_channel(n, 1, s[1], "scale");
  require_per_channel(n, 2, s[1], "B");
  KernelCall k;
  k.params_type = "kiln_instancenorm_params_t";
  k.params_init = ParamsInit().u("n", s[0]).u("c", s[1]).u("size", shape_elements(Shape(s.begin() + 2, s.end())))
                      .f("epsilon", n.attr_float("epsilon", 1e-5)).str();
  k.call = "kiln_instancenorm_f32(&$params, $in0, $in1, $in2, $out0)";
  return k;
}

// LayerNormalization (opset 17): statistics over the dims from `axis` on; optional
// Mean and InvStdDev outputs (shape X.shape[:axis] + ones).
KernelCall layernorm(const Node& n) {
  require_float32(n);
  const Shape& s = n.input(0)->shape;
  const int64_t r = int64_t(s.size());
  if (r == 0) throw CompileError(n.describe() + ": input must have rank >= 1");
  check_fits_32bit(n, s);
  const int64_t axis = normalize_axis(n, n.attr_int("axis", -1), r);
  if (n.attr_int("stash_type", 1) != 1)
    throw CompileError(n.describe() + ": stash_type " + std::to_string(n.attr_int("stash_type", 1)) +
                       " is not supported (only 1, float statistics)");
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < r; ++d) (d < axis ? outer : inner) *= s[size_t(d)];
  // Scale and bias are broadcast to X.shape[axis:]; Kiln supports the common case of
  // exactly that shape (leading ones allowed), so both are indexed like the row.
  for (size_t i : {size_t(1), size_t(2)}) {
    const Value* v = n.input(i);
    if (v == nullptr) {
      if (i == 1) throw CompileError(n.describe() + ": input Scale is required");
      continue;
    }
    Shape want(s.begin() + axis, s.end()), got = v->shape;
    while (got.size() > want.size() && got.front() == 1) got.erase(got.begin());
    if (got.size() < want.size()) got.insert(got.begin(), want.size() - got.size(), 1);
    if (got != want)
      throw CompileError(n.describe() + ": " + (i == 1 ? "Scale" : "B") + " of shape " + shape_str(v->shape) +
                         " is not supported; expected " + shape_str(want));
  }
  KernelCall k;
  k.params_type = "kiln_layernorm_params_t";
  k.params_init = ParamsInit().u("outer", outer).u("inner", inner).f("epsilon", n.attr_float("epsilon", 1e-5)).str();
  k.call = "kiln_layernorm_f32(&$params, $in0, $in1, " + in_or_null(n, 2) + ", $out0, " + out_or_null(n, 1) + ", " +
           out_or_null(n, 2) + ")";
  return k;
}

// LRN: across-channel window of `size` channels.
KernelCall lrn(const Node& n) {
  require_float32(n);
  const Shape& s = n.input(0)->shape;
  if (s.size() < 2) throw CompileError(n.describe() + ": input must be N x C x ...");
  check_fits_32bit(n, s);
  const int64_t size = n.attr_int("size", 0);
  if (size <= 0) throw CompileError(n.describe() + ": attribute size must be positive");
  KernelCall k;
  k.params_type = "kiln_lrn_params_t";
  k.params_init = ParamsInit().u("n", s[0]).u("c", s[1]).u("spatial", shape_elements(Shape(s.begin() + 2, s.end())))
                      .u("size", size).f("alpha", n.attr_float("alpha", 1e-4)).f("beta", n.attr_float("beta", 0.75))
                      .f("bias", n.attr_float("bias", 1.0)).str();
  k.call = "kiln_lrn_f32(&$params, $in0, $out0)";
  return k;
}

// MeanVarianceNormalization: statistics over `axes` (default [0, 2, 3]).
KernelCall mvn(const Node& n) {
  require_float32(n);
  const Shape& s = n.input(0)->shape;
  const int64_t r = int64_t(s.size());
  check_fits_32bit(n, s);
  std::vector<bool> reduced(size_t(r), false);
  for (int64_t a : n.attr_ints("axes", {0, 2, 3})) reduced[size_t(normalize_axis(n, a, r))] = true;
  const std::vector<int64_t> st = contiguous_strides(s);
  std::vector<int64_t> ks, kst, rs, rst;
  for (int64_t d = 0; d < r; ++d) {
    (reduced[size_t(d)] ? rs : ks).push_back(s[size_t(d)]);
    (reduced[size_t(d)] ? rst : kst).push_back(st[size_t(d)]);
  }
  KernelCall k;
  k.params_type = "kiln_mvn_params_t";
  k.params_init = ParamsInit().u("kept_ndim", int64_t(ks.size())).u("red_ndim", int64_t(rs.size()))
                      .ints("kept_shape", nonempty(ks)).ints("kept_stride", nonempty(kst))
                      .ints("red_shape", nonempty(rs)).ints("red_stride", nonempty(rst)).str();
  k.call = "kiln_mvn_f32(&$params, $in0, $out0)";
  return k;
}

}  // namespace

void register_normalization_lowerings() {
  register_lowering("BatchNormalization", batchnorm);
  register_lowering("InstanceNormalization", instancenorm);
  register_lowering("LayerNormalization", layernorm);
  register_lowering("LRN", lrn);
  register_lowering("MeanVarianceNormalization", mvn);
}

}  // namespace kiln
