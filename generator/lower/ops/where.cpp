// Where: out = cond ? x : y with 3-way numpy broadcasting, every dtype
// (crt/include/kiln/logic.h). bfloat16 moves through the uint16 kernel.
#include "lower/lower_util.h"
#include "lower/ops/elementwise_util.h"
#include "util/error.h"

namespace kiln {

namespace {

KernelCall lower_where(const Node& n) {
  if (n.inputs.size() != 3) throw CompileError(n.describe() + ": expects 3 inputs");
  const Value* c = elt_input(n, 0);
  const Value* x = elt_input(n, 1);
  const Value* y = elt_input(n, 2);
  require_dtype(n, c, DType::Bool, "condition");
  require_dtype(n, y, x->dtype, "input Y");
  require_dtype(n, n.outputs.at(0), x->dtype, "output");
  const std::string sfx = x->dtype == DType::BFloat16 ? "u16" : elt_suffix(n, x->dtype);
  KernelCall k;
  k.params_type = "kiln_broadcast_n_t";
  k.params_init = nary_broadcast_init(n, {c->shape, x->shape, y->shape}, n.outputs[0]->shape);
  k.call = "kiln_where_" + sfx + "(&$params, $in0, $in1, $in2, $out0)";
  return k;
}

}  // namespace

void register_where_lowerings() { register_lowering("Where", lower_where); }

}  // namespace kiln
