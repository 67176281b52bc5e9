// KilnQSoftmax (docs/quantization.md): TFLite's int8 softmax over the last axis ->
// kiln_softmax_s8 (crt/include/kiln/nn_s8_softmax.h). The fixed-point exp of every
// possible difference x - max is evaluated here with gemmlowp's functions
// (quant/gemmlowp_fixed_point.h); the kernel sums, takes the reciprocal and rescales.
#include <cmath>

#include "ir/kiln_ops.h"
#include "lower/lower_util.h"
#include "lower/ops/ops.h"
#include "quant/gemmlowp_fixed_point.h"
#include "util/error.h"

namespace kiln {

namespace {

KernelCall lower_qsoftmax(const Node& n) {
  const Value* x = n.input(0);
  const Value* y = n.outputs.at(0);
  if (!x) throw CompileError(n.describe() + ": needs x");
  require_dtype(n, x, DType::Int8, "input");
  require_dtype(n, y, DType::Int8, "output");
  if (x->shape.empty() || x->shape != y->shape)
    throw CompileError(n.describe() + ": x must have rank >= 1 and y its shape (got " + shape_str(x->shape) +
                       " -> " + shape_str(y->shape) + ")");
  check_fits_32bit(n, x->shape);
  const auto attrs = ops::get_attrs<ops::QSoftmax>(n);
  const double beta = attrs.beta;
  const double x_scale = attrs.x_scale;
  if (!(beta > 0.0) || !std::isfinite(beta) || !(x_scale > 0.0) || !std::isfinite(x_scale))
    throw CompileError(n.describe() + ": beta and x_scale must be positive and finite");
  // TFLite requires beta * x_scale, in Q5.26, to be a multiplier above 1.
  if (!(beta * x_scale * double(int64_t(1) << 26) > 1.0))
    throw CompileError(n.describe() + ": beta * x_scale is below 2^-26, which TFLite's int8 softmax does not support");
  const int64_t depth = x->shape.back();
  if (depth < 1 || depth > 4095)
    throw CompileError(n.describe() + ": the last dimension must be 1..4095 (the Q12.19 sum of exponentials), got " +
                       std::to_string(depth));
  const quant::SoftmaxScaling s = quant::softmax_scaling(beta, x_scale);
  int32_t table[256];
  quant::softmax_exp_table(s, table);
  KernelCall k;
  k.params_type = "kiln_softmax_s8_params_t";
  k.params_init = ParamsInit()
                      .i("rows", shape_elements(x->shape) / depth)
                      .i("depth", depth)
                      .ints("exp_table", std::vector<int64_t>(table, table + 256))
                      .str();
  k.call = "kiln_softmax_s8(&$params, $in0, $out0)";
  k.in_place_inputs = {0};
  return k;
}

}  // namespace

void register_qnn_softmax_lowerings() { register_lowering("KilnQSoftmax", lower_qsoftmax); }

}  // namespace kiln
