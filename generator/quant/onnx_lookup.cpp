#include "quant/onnx_lookup.h"
#include "util/quoted.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace kiln::quant {

namespace {

std::optional<float> constant_operand(const Node& n, size_t i, float dflt, std::string* why) {
  const Value* v = n.input(i);
  if (!v) return dflt;
  if (!v->is_constant() || v->constant->num_elements() != 1 || v->dtype != DType::Float32) {
    if (why) *why = n.describe() + " has an operand that is not a float32 constant";
    return std::nullopt;
  }
  return float(v->constant->as_double(0));
}

}  // namespace

std::optional<RealFunction> unary_real_function(const Node& n, std::string* why) {
  const std::string& op = n.op_type;
  if (!n.domain.empty() && n.domain != "ai.onnx") {
    if (why) *why = "no integer form of domain " + in_quotes(n.domain);
    return std::nullopt;
  }
  if (op == "Identity") return RealFunction([](float x) { return x; });
  if (op == "Relu") return RealFunction([](float x) { return x < 0.f ? 0.f : x; });
  if (op == "Clip") {
    float lo = -std::numeric_limits<float>::infinity(), hi = std::numeric_limits<float>::infinity();
    if (n.opset < 11) {
      lo = float(n.attr_float("min", lo));
      hi = float(n.attr_float("max", hi));
    } else {
      auto a = constant_operand(n, 1, lo, why), b = constant_operand(n, 2, hi, why);
      if (!a || !b) return std::nullopt;
      lo = *a, hi = *b;
    }
    return RealFunction([lo, hi](float x) { return std::min(std::max(x, lo), hi); });
  }
  if (op == "Sigmoid") return RealFunction([](float x) { return 1.f / (1.f + std::exp(-x)); });
  if (op == "Tanh") return RealFunction([](float x) { return std::tanh(x); });
  if (op == "HardSigmoid") {
    const float a = float(n.attr_float("alpha", 0.2)), b = float(n.attr_float("beta", 0.5));
    return RealFunction([a, b](float x) { return std::max(0.f, std::min(1.f, a * x + b)); });
  }
  if (op == "HardSwish")
    return RealFunction([](float x) { return x * std::max(0.f, std::min(1.f, x / 6.f + 0.5f)); });
  if (op == "LeakyRelu") {
    const float a = float(n.attr_float("alpha", 0.01));
    return RealFunction([a](float x) { return x >= 0.f ? x : a * x; });
  }
  if (op == "Elu") {
    const float a = float(n.attr_float("alpha", 1.0));
    return RealFunction([a](float x) { return x >= 0.f ? x : a * (std::exp(x) - 1.f); });
  }
  if (op == "Selu") {
    const float a = float(n.attr_float("alpha", 1.67326319217681884765625));
    const float g = float(n.attr_float("gamma", 1.05070102214813232421875));
    return RealFunction([a, g](float x) { return x > 0.f ? g * x : g * (a * std::exp(x) - a); });
  }
  if (op == "Neg") return RealFunction([](float x) { return -x; });
  if (op == "Abs") return RealFunction([](float x) { return std::fabs(x); });
  if (why) *why = "no integer form of " + op;
  return std::nullopt;
}

ConstantPtr onnx_lookup_table(const RealFunction& f, const QuantParams& in, const QuantParams& out) {
  std::vector<double> table(256);
  for (int i = 0; i < 256; ++i) {
    const float x = float((i - 128) - in.zero_point) * in.scale;
    table[size_t(i)] = double(quantize_to_int8(f(x), out));
  }
  return Constant::from_doubles(DType::Int8, {256}, table);
}

}  // namespace kiln::quant
