// Boolean logic: And Or Xor (bool, numpy broadcasting) and Not, lowered to the
// kernels in crt/include/kiln/logic.h. (BitShift is in elementwise.cpp.)
#include "lower/lower_util.h"
#include "lower/ops/elementwise_util.h"
#include "util/error.h"

namespace kiln {

namespace {

LowerFn bool_binary(const std::string& op) {
  return [op](const Node& n, const LoweringTarget&) {
    if (n.inputs.size() != 2) throw CompileError(n.describe() + ": expects 2 inputs");
    require_dtype(n, elt_input(n, 0), DType::Bool, "input 0");
    require_dtype(n, elt_input(n, 1), DType::Bool, "input 1");
    require_dtype(n, n.outputs.at(0), DType::Bool, "output");
    return binary_broadcast_call(n, "kiln_" + op + "_b");
  };
}

KernelCall lower_not(const Node& n) {
  require_dtype(n, elt_input(n, 0), DType::Bool, "input");
  require_dtype(n, n.outputs.at(0), DType::Bool, "output");
  KernelCall k;
  k.call = "kiln_not_b($in0, $out0, " + std::to_string(n.outputs[0]->num_elements()) + "u)";
  return k;
}

}  // namespace

void register_logic_lowerings() {
  register_lowering("And", bool_binary("and"));
  register_lowering("Or", bool_binary("or"));
  register_lowering("Xor", bool_binary("xor"));
  register_lowering("Not", lower_not);
}

}  // namespace kiln
