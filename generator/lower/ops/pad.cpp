// Pad (constant / reflect / edge). Pads are an attribute before opset 11, then an
// int64 input: constant (baked into the parameters) or a runtime tensor the kernel
// reads and checks against the planned output shape. The constant value is the
// `value` attribute, a constant input (baked as raw bytes), or a runtime input.
#include <cstring>

#include "lower/lower_util.h"
#include "lower/ops/data_util.h"
#include "lower/ops/ops.h"
#include "util/error.h"
#include "util/quoted.h"

namespace kiln {

namespace {

KernelCall pad(const Node& n) {
  const Value* x = n.input(0);
  const Value* y = n.outputs[0];
  require_dtype(n, y, x->dtype, "output");
  check_fits_32bit(n, x->shape);
  check_fits_32bit(n, y->shape);
  const int64_t r = int64_t(x->shape.size());
  if (r == 0) throw CompileError(n.describe() + ": cannot pad a scalar");
  const int64_t es = data::elem_size(n, x->dtype);
  const std::string mode = n.attr_string("mode", "constant");
  std::string mode_c;
  if (mode == "constant") mode_c = "KILN_PAD_CONSTANT";
  else if (mode == "reflect") mode_c = "KILN_PAD_REFLECT";
  else if (mode == "edge") mode_c = "KILN_PAD_EDGE";
  else throw CompileError(n.describe() + ": mode " + in_quotes(mode) + " is not supported");

  std::vector<int64_t> pads;
  std::string pads_ptr = "NULL", value_ptr = "NULL";
  uint8_t value[8] = {0};
  if (n.opset < 11) {
    pads = n.attr_ints("pads");
    const double v = n.attr_float("value", 0.0);
    if (x->dtype != DType::Float32) throw CompileError(n.describe() + ": Pad before opset 11 supports float32 only");
    const float f = float(v);
    std::memcpy(value, &f, 4);
  } else {
    const Value* p = n.input(1);
    if (!p || p->dtype != DType::Int64 || p->num_elements() != 2 * r)
      throw CompileError(n.describe() + ": pads must be 2*rank int64 values");
    if (n.input(3)) throw CompileError(n.describe() + ": the axes input (opset 18) is not supported");
    if (p->is_constant()) pads = p->constant->to_int64s();
    else pads_ptr = "$in1";
    if (const Value* cv = n.input(2)) {
      require_dtype(n, cv, x->dtype, "constant_value");
      if (cv->num_elements() != 1) throw CompileError(n.describe() + ": constant_value must be one element");
      if (cv->is_constant()) std::memcpy(value, cv->constant->data(), size_t(es));
      else value_ptr = "$in2";
    }
  }
  if (pads_ptr == "NULL") {
    if (int64_t(pads.size()) != 2 * r) throw CompileError(n.describe() + ": pads must have 2*rank entries");
    for (int64_t d = 0; d < r; ++d) {
      if (x->shape[size_t(d)] + pads[size_t(d)] + pads[size_t(d + r)] != y->shape[size_t(d)])
        throw CompileError(n.describe() + ": pads do not give the declared output shape " + shape_str(y->shape));
    }
  } else {
    pads.assign(size_t(2 * r), 0);
  }
  std::vector<int64_t> vbytes(value, value + 8);
  KernelCall k;
  k.params_type = "kiln_pad_params_t";
  k.params_init = ParamsInit().u("ndim", r).u("elem_size", es).raw("mode", mode_c).ints("in_shape", x->shape)
                      .ints("out_shape", y->shape).ints("pads", pads).ints("value", vbytes).str();
  k.call = "kiln_pad(&$params, $in0, " + pads_ptr + ", " + value_ptr + ", $out0)";
  return k;
}

}  // namespace

void register_pad_lowerings() { register_lowering("Pad", pad); }

}  // namespace kiln
