// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (opset 12/13), float32 and
// float64, int32 or int64 targets, optional weight, ignore_index, reduction
// none/sum/mean. Both kernels see the input as [N, C, D] with D the product of the
// spatial dims, so [N, C] and [N, C, d1, ..., dk] inputs share one loop.
#include <climits>

#include "lower/lower_util.h"
#include "lower/ops/data_util.h"
#include "lower/ops/ops.h"
#include "util/error.h"
#include "util/quoted.h"

namespace kiln {

namespace {

// Checks the operands shared by both ops and fills the kernel parameters.
std::string loss_params(const Node& n) {
  const Value* x = n.input(0);
  const Value* t = n.input(1);
  const Value* w = n.input(2);
  if (!x || !t) throw CompileError(n.describe() + ": input and target are required");
  const Shape& xs = x->shape;
  if (xs.size() < 2) throw CompileError(n.describe() + ": input must have rank >= 2 ([N, C, d1, ..., dk])");
  check_fits_32bit(n, xs);
  const int64_t target_size = data::index_size(n, 1);
  // The target is the input's shape without C.
  Shape expect = {xs[0]};
  expect.insert(expect.end(), xs.begin() + 2, xs.end());
  if (t->shape != expect)
    throw CompileError(n.describe() + ": target shape " + shape_str(t->shape) + " does not match input shape " +
                       shape_str(xs) + " (expected " + shape_str(expect) + ")");
  if (w) {
    require_dtype(n, w, x->dtype, "weight");
    if (w->shape != Shape{xs[1]})
      throw CompileError(n.describe() + ": weight shape " + shape_str(w->shape) + " must be [C] = [" +
                         std::to_string(xs[1]) + "]");
  }
  const std::string red = n.attr_string("reduction", "mean");
  std::string reduction;
  if (red == "none") reduction = "KILN_LOSS_NONE";
  else if (red == "sum") reduction = "KILN_LOSS_SUM";
  else if (red == "mean") reduction = "KILN_LOSS_MEAN";
  else throw CompileError(n.describe() + ": reduction " + in_quotes(red) + " is not one of none, sum, mean");
  const Value* y = n.outputs.at(0);
  require_dtype(n, y, x->dtype, "output");
  if (y->num_elements() != (red == "none" ? t->num_elements() : 1))
    throw CompileError(n.describe() + ": output shape " + shape_str(y->shape) + " does not fit reduction " + in_quotes(red));
  int64_t d = 1;
  for (size_t k = 2; k < xs.size(); ++k) d *= xs[k];
  const bool has_ii = n.has_attr("ignore_index");
  const int64_t ii = n.attr_int("ignore_index", 0);
  // INT64_MIN has no C literal (the minus applies to an out-of-range constant).
  const std::string ii_text = ii == INT64_MIN ? "INT64_MIN" : "INT64_C(" + std::to_string(ii) + ")";
  return ParamsInit().u("n", xs[0]).u("c", xs[1]).u("d", d).raw("reduction", reduction)
      .u("target_size", target_size).u("has_ignore_index", has_ii).raw("ignore_index", ii_text).str();
}

KernelCall nll_loss(const Node& n) {
  const std::string suffix = float_suffix(n, n.input(0) ? n.input(0)->dtype : DType::Undefined);
  KernelCall k;
  k.params_type = "kiln_loss_params_t";
  k.params_init = loss_params(n);
  k.call = "kiln_nll_loss_" + suffix + "(&$params, $in0, $in1, " + (n.input(2) ? "$in2" : "NULL") + ", $out0)";
  return k;
}

KernelCall softmax_cross_entropy(const Node& n) {
  const std::string suffix = float_suffix(n, n.input(0) ? n.input(0)->dtype : DType::Undefined);
  KernelCall k;
  k.params_type = "kiln_loss_params_t";
  k.params_init = loss_params(n);
  // log_prob (optional output 1) is written only when it exists.
  std::string log_prob = "NULL";
  if (n.outputs.size() > 1 && n.outputs[1]->dtype != DType::Undefined) {
    const Value* lp = n.outputs[1];
    require_dtype(n, lp, n.input(0)->dtype, "output");
    if (lp->shape != n.input(0)->shape)
      throw CompileError(n.describe() + ": log_prob shape " + shape_str(lp->shape) + " differs from the input's");
    log_prob = "$out1";
  }
  k.call = "kiln_softmax_cross_entropy_" + suffix + "(&$params, $in0, $in1, " + (n.input(2) ? "$in2" : "NULL") +
           ", $out0, " + log_prob + ")";
  return k;
}

}  // namespace

void register_loss_lowerings() {
  register_lowering("NegativeLogLikelihoodLoss", nll_loss);
  register_lowering("SoftmaxCrossEntropyLoss", softmax_cross_entropy);
}

}  // namespace kiln
