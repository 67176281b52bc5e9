// Training steps of the ai.onnx.preview.training domain (Adagrad, Momentum, Adam),
// lowered to crt/include/kiln/optimizer.h. One call updates every tensor of the
// node; operands are passed as pointer arrays in ONNX order.
#include <string>
#include <vector>

#include "lower/lower_util.h"
#include "lower/ops/ops.h"
#include "util/error.h"
#include "util/quoted.h"

namespace kiln {

namespace {

constexpr const char* kTrainingDomain = "ai.onnx.preview.training";
constexpr size_t kMaxTensors = 16;  // KILN_OPTIMIZER_MAX_TENSORS

// Checks the operands of an optimizer with `state` state tensors per updated
// tensor (Adagrad 1, Momentum 1, Adam 2) and returns the element count of each.
std::vector<int64_t> check_operands(const Node& n, size_t state) {
  const size_t per = 2 + state;  // X, G, states
  if (n.inputs.size() < 2 + per || (n.inputs.size() - 2) % per != 0)
    throw CompileError(n.describe() + ": expects R, T and " + std::to_string(per) + " tensors per updated tensor, got " +
                       std::to_string(n.inputs.size()) + " inputs");
  const size_t k = (n.inputs.size() - 2) / per;
  if (k > kMaxTensors)
    throw CompileError(n.describe() + ": updates " + std::to_string(k) + " tensors; Kiln's kernel takes at most " +
                       std::to_string(kMaxTensors));
  if (n.outputs.size() != (1 + state) * k)
    throw CompileError(n.describe() + ": expects " + std::to_string((1 + state) * k) + " outputs");
  for (const Value* v : n.inputs)
    if (v == nullptr) throw CompileError(n.describe() + ": an input is omitted; every operand is required");
  require_dtype(n, n.inputs[0], DType::Float32, "R (learning rate)");
  require_dtype(n, n.inputs[1], DType::Int64, "T (iteration count)");
  if (n.inputs[0]->num_elements() != 1 || n.inputs[1]->num_elements() != 1)
    throw CompileError(n.describe() + ": R and T must be scalars");
  std::vector<int64_t> sizes;
  for (size_t t = 0; t < k; ++t) {
    const Value* x = n.inputs[2 + t];
    check_fits_32bit(n, x->shape);
    for (size_t j = 0; j < per; ++j) {
      const Value* v = n.inputs[2 + j * k + t];
      require_dtype(n, v, DType::Float32, "tensor operand");
      if (v->shape != x->shape)
        throw CompileError(n.describe() + ": operand " + in_quotes(v->name) + " has shape " + shape_str(v->shape) +
                           ", not the shape " + shape_str(x->shape) + " of " + in_quotes(x->name));
    }
    for (size_t j = 0; j < 1 + state; ++j) {
      const Value* o = n.outputs[j * k + t];
      require_dtype(n, o, DType::Float32, "output");
      if (o->shape != x->shape) throw CompileError(n.describe() + ": output " + in_quotes(o->name) + " has the wrong shape");
    }
    sizes.push_back(x->num_elements());
  }
  return sizes;
}

KernelCall adagrad(const Node& n) {
  const auto sizes = check_operands(n, 1);
  KernelCall k;
  k.params_type = "kiln_adagrad_params_t";
  k.params_init = ParamsInit()
                      .u("num_tensors", int64_t(sizes.size()))
                      .ints("n", sizes)
                      .f("decay_factor", n.attr_float("decay_factor", 0.0))
                      .f("epsilon", n.attr_float("epsilon", 1e-6))
                      .f("norm_coefficient", n.attr_float("norm_coefficient", 0.0))
                      .str();
  k.call = "kiln_adagrad_f32(&$params, $inptrs, $outptrs)";
  return k;
}

KernelCall momentum(const Node& n) {
  const auto sizes = check_operands(n, 1);
  const std::string mode = n.attr_string("mode", "");
  if (mode != "standard" && mode != "nesterov")
    throw CompileError(n.describe() + ": mode " + in_quotes(mode) + " is neither 'standard' nor 'nesterov'");
  for (const char* a : {"alpha", "beta", "norm_coefficient"})
    if (!n.has_attr(a)) throw CompileError(n.describe() + ": required attribute " + in_quotes(a) + " is missing");
  KernelCall k;
  k.params_type = "kiln_momentum_params_t";
  k.params_init = ParamsInit()
                      .u("num_tensors", int64_t(sizes.size()))
                      .ints("n", sizes)
                      .f("alpha", n.attr_float("alpha", 0.0))
                      .f("beta", n.attr_float("beta", 0.0))
                      .f("norm_coefficient", n.attr_float("norm_coefficient", 0.0))
                      .u("nesterov", mode == "nesterov" ? 1 : 0)
                      .str();
  k.call = "kiln_momentum_f32(&$params, $inptrs, $outptrs)";
  return k;
}

KernelCall adam(const Node& n) {
  const auto sizes = check_operands(n, 2);
  KernelCall k;
  k.params_type = "kiln_adam_params_t";
  k.params_init = ParamsInit()
                      .u("num_tensors", int64_t(sizes.size()))
                      .ints("n", sizes)
                      .f("alpha", n.attr_float("alpha", 0.9))
                      .f("beta", n.attr_float("beta", 0.999))
                      .f("epsilon", n.attr_float("epsilon", 1e-6))
                      .f("norm_coefficient", n.attr_float("norm_coefficient", 0.0))
                      .f("norm_coefficient_post", n.attr_float("norm_coefficient_post", 0.0))
                      .str();
  k.call = "kiln_adam_f32(&$params, $inptrs, $outptrs)";
  return k;
}

}  // namespace

void register_optimizer_lowerings() {
  register_domain_lowering(kTrainingDomain, "Adagrad", adagrad);
  register_domain_lowering(kTrainingDomain, "Momentum", momentum);
  register_domain_lowering(kTrainingDomain, "Adam", adam);
}

}  // namespace kiln
