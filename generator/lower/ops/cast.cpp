// Cast and CastLike between every pair of storable dtypes (crt/include/kiln/cast.h).
// A cast to the input's own dtype is a view. Strings are rejected.
#include "lower/lower_util.h"
#include "lower/ops/elementwise_util.h"
#include "util/error.h"

namespace kiln {

namespace {

KernelCall lower_cast(const Node& n) {
  const Value* x = elt_input(n, 0);
  const Value* y = n.outputs.at(0);
  if (x->dtype == DType::String || y->dtype == DType::String)
    throw CompileError(n.describe() + ": casts from or to string are not supported");
  const DType to = y->dtype;
  if (n.op_type == "Cast" && n.has_attr("to") && n.attr_int("to", 0) != int64_t(to))
    throw CompileError(n.describe() + ": output dtype " + dtype_name(to) + " disagrees with attribute 'to'");
  check_fits_32bit(n, x->shape);
  KernelCall k;
  if (x->dtype == to) {
    k.alias_input = 0;
    return k;
  }
  std::string dst = elt_suffix(n, to);
  // The ONNX reference before opset 19 made bfloat16 by dropping the low 16 bits of
  // the float; later opsets round to nearest even.
  if (to == DType::BFloat16 && n.opset < 19) dst = "bf16t";
  k.call = "kiln_cast_" + elt_suffix(n, x->dtype) + "_" + dst + "($in0, $out0, " +
           std::to_string(y->num_elements()) + "u)";
  return k;
}

}  // namespace

void register_cast_lowerings() {
  register_lowering("Cast", lower_cast);
  register_lowering("CastLike", lower_cast);
}

}  // namespace kiln
