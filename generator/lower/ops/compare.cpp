// Comparisons: Equal Less LessOrEqual Greater GreaterOrEqual, numpy broadcasting,
// bool output, every numeric dtype and bool (crt/include/kiln/logic.h).
#include "lower/lower_util.h"
#include "lower/ops/elementwise_util.h"
#include "util/error.h"

namespace kiln {

namespace {

LowerFn compare(const std::string& op) {
  return [op](const Node& n, const LoweringTarget&) {
    if (n.inputs.size() != 2) throw CompileError(n.describe() + ": expects 2 inputs");
    const DType t = elt_input(n, 0)->dtype;
    require_elt_types(n, t, EltTypes::NumericOrBool, "input 0");
    require_dtype(n, elt_input(n, 1), t, "input 1");
    require_dtype(n, n.outputs.at(0), DType::Bool, "output");
    return binary_broadcast_call(n, "kiln_" + op + "_" + elt_suffix(n, t));
  };
}

}  // namespace

void register_compare_lowerings() {
  register_lowering("Equal", compare("equal"));
  register_lowering("Less", compare("less"));
  register_lowering("LessOrEqual", compare("less_equal"));
  register_lowering("Greater", compare("greater"));
  register_lowering("GreaterOrEqual", compare("greater_equal"));
}

}  // namespace kiln
