// KilnQLookup (docs/quantization.md): y = table[x + 128], the table a constant
// int8[256] the front end computed -> kiln_lookup_s8, in place when possible.
#include "lower/lower_util.h"
#include "lower/ops/ops.h"
#include "util/error.h"

namespace kiln {

namespace {

KernelCall lower_qlookup(const Node& n) {
  const Value *x = n.input(0), *table = n.input(1);
  const Value* y = n.outputs.at(0);
  if (!x || !table) throw CompileError(n.describe() + ": needs x and table");
  require_dtype(n, x, DType::Int8, "input");
  require_dtype(n, table, DType::Int8, "table");
  require_dtype(n, y, DType::Int8, "output");
  constant_input(n, 1, "table");
  if (shape_elements(table->shape) != 256)
    throw CompileError(n.describe() + ": table must have 256 entries, got " + shape_str(table->shape));
  if (x->shape != y->shape)
    throw CompileError(n.describe() + ": output " + shape_str(y->shape) + " differs from input " +
                       shape_str(x->shape));
  check_fits_32bit(n, x->shape);
  KernelCall k;
  k.params_type = "kiln_lookup_s8_params_t";
  k.params_init = ParamsInit().u("size", shape_elements(x->shape)).str();
  k.call = "kiln_lookup_s8(&$params, $in0, $in1, $out0)";
  k.in_place_inputs = {0};
  return k;
}

}  // namespace

void register_qnn_lookup_lowerings() { register_lowering("KilnQLookup", lower_qlookup); }

}  // namespace kiln
