// Element-wise ops: Add Sub Mul Div (broadcasting), Relu Sigmoid Tanh Clip.
#include <cmath>

#include "lower/lower_util.h"
#include "lower/ops/ops.h"
#include "util/error.h"

namespace kiln {

namespace {

LowerFn binary(const std::string& kernel) {
  return [kernel](const Node& n) {
    require_float32(n);
    if (n.inputs.size() != 2) throw CompileError(n.describe() + ": expects 2 inputs");
    if (n.opset < 7 && n.has_attr("broadcast"))
      throw CompileError(n.describe() + ": legacy 'broadcast' attribute (opset < 7) is not supported");
    BroadcastPlan p = plan_broadcast(n, n.inputs[0]->shape, n.inputs[1]->shape, n.outputs[0]->shape);
    KernelCall k;
    k.params_type = "kiln_broadcast_t";
    k.params_init = broadcast_init(p);
    k.call = kernel + "(&$params, $in0, $in1, $out0)";
    return k;
  };
}

LowerFn unary(const std::string& kernel) {
  return [kernel](const Node& n) {
    require_float32(n);
    KernelCall k;
    k.call = kernel + "($in0, $out0, " + std::to_string(n.outputs[0]->num_elements()) + "u)";
    return k;
  };
}

KernelCall lower_clip(const Node& n) {
  require_float32(n);
  double lo = -INFINITY, hi = INFINITY;
  if (n.opset < 11) {
    lo = n.attr_float("min", -INFINITY);
    hi = n.attr_float("max", INFINITY);
  } else {
    if (n.input(1)) lo = constant_input(n, 1, "min")->as_double(0);
    if (n.input(2)) hi = constant_input(n, 2, "max")->as_double(0);
  }
  KernelCall k;
  k.params_type = "kiln_clip_params_t";
  k.params_init = ParamsInit().u("n", n.outputs[0]->num_elements()).f("min", lo).f("max", hi).str();
  k.call = "kiln_clip_f32(&$params, $in0, $out0)";
  return k;
}

}  // namespace

void register_elementwise_lowerings() {
  register_lowering("Add", binary("kiln_add_f32"));
  register_lowering("Sub", binary("kiln_sub_f32"));
  register_lowering("Mul", binary("kiln_mul_f32"));
  register_lowering("Div", binary("kiln_div_f32"));
  register_lowering("Relu", unary("kiln_relu_f32"));
  register_lowering("Sigmoid", unary("kiln_sigmoid_f32"));
  register_lowering("Tanh", unary("kiln_tanh_f32"));
  register_lowering("Clip", lower_clip);
}

}  // namespace kiln
