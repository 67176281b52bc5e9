// Element-wise arithmetic: Add Sub Mul Div Mod Pow PRelu (binary, numpy
// broadcasting) and Min Max Sum Mean (variadic, N-way broadcasting), every dtype
// the crt kernels have (see crt/include/kiln/elementwise.h). The other element-wise
// families are unary_math.cpp, logic.cpp, compare.cpp, cast.cpp, where.cpp,
// elementwise_shape.cpp.
#include "lower/lower_util.h"
#include "lower/ops/elementwise_util.h"
#include "lower/ops/ops.h"
#include "util/error.h"
#include "util/quoted.h"

namespace kiln {

namespace {

// out = a (op) b: both inputs and the output share one dtype from `types`.
KernelCall lower_binary(const Node& n, const std::string& op, EltTypes types) {
  if (n.inputs.size() != 2) throw CompileError(n.describe() + ": expects 2 inputs");
  const DType t = elt_input(n, 0)->dtype;
  require_elt_types(n, t, types, "input 0");
  require_dtype(n, elt_input(n, 1), t, "input 1");
  require_dtype(n, n.outputs.at(0), t, "output");
  KernelCall k = binary_broadcast_call(n, "kiln_" + op + "_" + elt_suffix(n, t));
  k.in_place_inputs = {0, 1};  // elementwise.h: out may alias an input of its size
  return k;
}

LowerFn binary(const std::string& op, EltTypes types) {
  return [op, types](const Node& n, const LoweringTarget&) { return lower_binary(n, op, types); };
}

KernelCall lower_mod(const Node& n) {
  // fmod = 1: remainder with the dividend's sign (C fmod); 0: the divisor's (numpy.mod).
  const int64_t fmod = n.attr_int("fmod", 0);
  if (fmod != 0 && fmod != 1) throw CompileError(n.describe() + ": fmod must be 0 or 1");
  return lower_binary(n, fmod ? "fmod" : "mod", EltTypes::Numeric);
}

KernelCall lower_pow(const Node& n) {
  if (n.inputs.size() != 2) throw CompileError(n.describe() + ": expects 2 inputs");
  const DType base = elt_input(n, 0)->dtype, exp = elt_input(n, 1)->dtype;
  if (!(elt_accepts(EltTypes::Float, base) || base == DType::Int32 || base == DType::Int64))
    throw CompileError(n.describe() + ": base has dtype " + dtype_name(base) +
                       "; Pow supports float16/float32/float64/int32/int64 bases");
  // Opset < 12 requires both inputs to have one dtype; later opsets allow any numeric exponent.
  require_elt_types(n, exp, EltTypes::Numeric, "exponent");
  require_dtype(n, n.outputs.at(0), base, "output");
  KernelCall k = binary_broadcast_call(n, "kiln_pow_" + elt_suffix(n, base) + "_" + elt_suffix(n, exp));
  k.in_place_inputs = {0, 1};  // elementwise.h: out may alias an input of its size (and dtype)
  return k;
}

KernelCall lower_bitshift(const Node& n) {
  const std::string dir = n.attr_string("direction", "");
  if (dir != "LEFT" && dir != "RIGHT")
    throw CompileError(n.describe() + ": direction must be LEFT or RIGHT, got " + in_quotes(dir));
  return lower_binary(n, dir == "LEFT" ? "bitshift_left" : "bitshift_right", EltTypes::UInt);
}

// Min Max Sum Mean: N inputs (at least one) of one dtype, broadcast together.
LowerFn variadic(const std::string& op, EltTypes types) {
  return [op, types](const Node& n, const LoweringTarget&) {
    if (n.inputs.empty()) throw CompileError(n.describe() + ": expects at least 1 input");
    if (n.inputs.size() > 32) throw CompileError(n.describe() + ": more than 32 inputs (KILN_MAX_NARY_INPUTS)");
    const DType t = elt_input(n, 0)->dtype;
    require_elt_types(n, t, types, "input 0");
    std::vector<Shape> shapes;
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      require_dtype(n, elt_input(n, i), t, "input");
      shapes.push_back(n.inputs[i]->shape);
    }
    require_dtype(n, n.outputs.at(0), t, "output");
    if (n.opset < 8)  // before opset 8 the inputs had to have equal shapes
      for (const Shape& s : shapes)
        if (s != n.outputs[0]->shape)
          throw CompileError(n.describe() + ": opset < 8 requires all inputs to have the output's shape");
    KernelCall k;
    k.params_type = "kiln_broadcast_n_t";
    k.params_init = nary_broadcast_init(n, shapes, n.outputs[0]->shape);
    k.call = "kiln_" + op + "_" + elt_suffix(n, t) + "(&$params, $inptrs, $out0)";
    for (size_t i = 0; i < n.inputs.size(); ++i) k.in_place_inputs.push_back(int(i));  // elementwise.h
    return k;
  };
}

}  // namespace

void register_elementwise_lowerings() {
  register_lowering("Add", binary("add", EltTypes::Numeric));
  register_lowering("Sub", binary("sub", EltTypes::Numeric));
  register_lowering("Mul", binary("mul", EltTypes::Numeric));
  register_lowering("Div", binary("div", EltTypes::Numeric));
  register_lowering("PRelu", binary("prelu", EltTypes::Numeric));
  register_lowering("Mod", lower_mod);
  register_lowering("Pow", lower_pow);
  register_lowering("BitShift", lower_bitshift);
  register_lowering("Min", variadic("min", EltTypes::Numeric));
  register_lowering("Max", variadic("max", EltTypes::Numeric));
  register_lowering("Sum", variadic("sum", EltTypes::Numeric));
  register_lowering("Mean", variadic("mean", EltTypes::Float));
}

}  // namespace kiln
