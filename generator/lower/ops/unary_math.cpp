// Unary element-wise ops: math functions, activations (with their attribute
// defaults), IsNaN/IsInf and Clip, lowered to crt kernels in
// crt/include/kiln/elementwise.h (one kernel per dtype).
#include <cmath>

#include "lower/lower_util.h"
#include "lower/ops/elementwise_util.h"
#include "util/error.h"

namespace kiln {

namespace {

// Checks one input and one output of the same dtype from `types`; returns the dtype.
DType unary_dtype(const Node& n, EltTypes types) {
  const Value* x = elt_input(n, 0);
  require_elt_types(n, x->dtype, types, "input");
  require_dtype(n, n.outputs.at(0), x->dtype, "output");
  check_fits_32bit(n, x->shape);
  return x->dtype;
}

std::string count(const Node& n) { return std::to_string(n.outputs.at(0)->num_elements()) + "u"; }

// kiln_<op>_<sfx>(in, out, n)
LowerFn unary(const std::string& op, EltTypes types) {
  return [op, types](const Node& n, const LoweringTarget&) {
    const DType t = unary_dtype(n, types);
    KernelCall k;
    k.call = "kiln_" + op + "_" + elt_suffix(n, t) + "($in0, $out0, " + count(n) + ")";
    k.in_place_inputs = {0};  // elementwise.h: out == in allowed
    return k;
  };
}

// kiln_<op>_<sfx>(&params, in, out) with alpha/beta/gamma from the attributes.
struct ActivationAttrs {
  double alpha = 0, beta = 0, gamma = 0;
};
LowerFn activation(const std::string& op, ActivationAttrs defaults) {
  return [op, defaults](const Node& n, const LoweringTarget&) {
    const DType t = unary_dtype(n, EltTypes::Float);
    const double alpha = n.attr_float("alpha", defaults.alpha);
    if (op == "celu" && alpha == 0) throw CompileError(n.describe() + ": Celu alpha must not be 0");
    KernelCall k;
    k.params_type = "kiln_activation_params_t";
    k.params_init = ParamsInit()
                        .u("n", n.outputs[0]->num_elements())
                        .f("alpha", alpha)
                        .f("beta", n.attr_float("beta", defaults.beta))
                        .f("gamma", n.attr_float("gamma", defaults.gamma))
                        .str();
    k.call = "kiln_" + op + "_" + elt_suffix(n, t) + "(&$params, $in0, $out0)";
    k.in_place_inputs = {0};  // elementwise.h: out == in allowed
    return k;
  };
}

KernelCall lower_isnan(const Node& n) {
  const Value* x = elt_input(n, 0);
  require_elt_types(n, x->dtype, EltTypes::Float, "input");
  require_dtype(n, n.outputs.at(0), DType::Bool, "output");
  KernelCall k;
  k.call = "kiln_isnan_" + elt_suffix(n, x->dtype) + "($in0, $out0, " + count(n) + ")";
  return k;
}

KernelCall lower_isinf(const Node& n) {
  const Value* x = elt_input(n, 0);
  require_elt_types(n, x->dtype, EltTypes::Float, "input");
  require_dtype(n, n.outputs.at(0), DType::Bool, "output");
  KernelCall k;
  k.params_type = "kiln_isinf_params_t";
  k.params_init = ParamsInit()
                      .u("n", n.outputs[0]->num_elements())
                      .u("detect_positive", n.attr_int("detect_positive", 1) != 0)
                      .u("detect_negative", n.attr_int("detect_negative", 1) != 0)
                      .str();
  k.call = "kiln_isinf_" + elt_suffix(n, x->dtype) + "(&$params, $in0, $out0)";
  return k;
}

KernelCall lower_clip(const Node& n) {
  if (n.opset < 11) {
    // Bounds are float attributes; the kernel with compile-time bounds is float32 only.
    require_float32(n);
    KernelCall k;
    k.params_type = "kiln_clip_params_t";
    k.params_init = ParamsInit()
                        .u("n", n.outputs.at(0)->num_elements())
                        .f("min", n.attr_float("min", -INFINITY))
                        .f("max", n.attr_float("max", INFINITY))
                        .str();
    k.call = "kiln_clip_f32(&$params, $in0, $out0)";
    k.in_place_inputs = {0};  // elementwise.h: out == in allowed
    return k;
  }
  // Opset 11+: min / max are optional scalar tensors of the input's dtype.
  const DType t = unary_dtype(n, EltTypes::Numeric);
  for (size_t i = 1; i <= 2; ++i) {
    const Value* b = n.input(i);
    if (b == nullptr) continue;
    require_dtype(n, b, t, i == 1 ? "min" : "max");
    if (b->num_elements() != 1)
      throw CompileError(n.describe() + ": " + (i == 1 ? "min" : "max") + " must be a scalar, got shape " +
                         shape_str(b->shape));
  }
  KernelCall k;
  // An omitted bound is NULL ($inK only exists for inputs the node lists).
  const std::string lo = n.input(1) ? "$in1" : "NULL", hi = n.input(2) ? "$in2" : "NULL";
  k.call = "kiln_clip_range_" + elt_suffix(n, t) + "($in0, " + lo + ", " + hi + ", $out0, " + count(n) + ")";
  k.in_place_inputs = {0};  // elementwise.h: out == in allowed
  return k;
}

}  // namespace

void register_unary_math_lowerings() {
  register_lowering("Abs", unary("abs", EltTypes::Numeric));
  register_lowering("Neg", unary("neg", EltTypes::SignedOrFloat));
  register_lowering("Sign", unary("sign", EltTypes::Numeric));
  register_lowering("Relu", unary("relu", EltTypes::SignedOrFloat));
  for (const char* op : {"Reciprocal", "Sqrt", "Exp", "Log", "Floor", "Ceil", "Round", "Sin", "Cos", "Tan", "Asin",
                         "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Erf", "Sigmoid", "Tanh",
                         "Softplus", "Softsign", "Mish", "HardSwish"}) {
    std::string lower = op;
    for (auto& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
    register_lowering(op, unary(lower, EltTypes::Float));
  }
  register_lowering("LeakyRelu", activation("leakyrelu", {.alpha = 0.01}));
  register_lowering("Elu", activation("elu", {.alpha = 1.0}));
  register_lowering("Selu", activation("selu", {.alpha = 1.67326319217681884765625, .gamma = 1.05070102214813232421875}));
  register_lowering("Celu", activation("celu", {.alpha = 1.0}));
  register_lowering("HardSigmoid", activation("hardsigmoid", {.alpha = 0.2, .beta = 0.5}));
  register_lowering("ThresholdedRelu", activation("thresholdedrelu", {.alpha = 1.0}));
  register_lowering("IsNaN", lower_isnan);
  register_lowering("IsInf", lower_isinf);
  register_lowering("Clip", lower_clip);
}

}  // namespace kiln
