#include "quant/qdq_patterns.h"
#include "quant/graph_edit.h"
#include "util/quoted.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kiln::quant {

bool fail(std::string* why, const std::string& reason) {
  if (why) *why = reason;
  return false;
}

namespace {

// A DequantizeLinear / QuantizeLinear that works per tensor or per axis, never per block.
bool blocked(const Node* n) { return n->attr_int("block_size", 0) != 0; }

// The real-valued bound of a Clip operand (input for opset >= 11, attribute before).
std::optional<float> clip_bound(const Node* clip, size_t input, const char* attr, float dflt, std::string* why) {
  if (clip->opset < 11) return float(clip->attr_float(attr, dflt));
  const Value* v = clip->input(input);
  if (!v) return dflt;
  if (!v->is_constant() || v->constant->num_elements() != 1 || v->dtype != DType::Float32) {
    fail(why, clip->describe() + " has a bound that is not a float32 constant");
    return std::nullopt;
  }
  return float(v->constant->as_double(0));
}

}  // namespace

int32_t quantize_to_int8(float real, const QuantParams& p) {
  const float q = std::nearbyint(real / p.scale);  // default rounding mode: half to even
  const double v = double(q) + p.zero_point;
  if (std::isnan(v)) return p.zero_point;
  return int32_t(std::clamp(v, -128.0, 127.0));
}

int32_t quantize_bound(float real, const QuantParams& out) {
  if (real == -std::numeric_limits<float>::infinity()) return -128;
  if (real == std::numeric_limits<float>::infinity()) return 127;
  return quantize_to_int8(real, out);
}

std::optional<QuantParams> per_tensor_params(const Value* scale, const Value* zero_point, std::string* why) {
  if (!scale || !scale->is_constant()) return fail(why, "the scale is not a constant"), std::nullopt;
  if (scale->dtype != DType::Float32) return fail(why, "the scale is " + dtype_name(scale->dtype) + ", not float32"), std::nullopt;
  if (scale->constant->num_elements() != 1) return fail(why, "the activation is quantized per axis"), std::nullopt;
  QuantParams p;
  p.scale = float(scale->constant->as_double(0));
  if (!(p.scale > 0.f) || !std::isfinite(p.scale))
    return fail(why, "the scale is not a positive finite number"), std::nullopt;
  if (zero_point) {
    if (!zero_point->is_constant()) return fail(why, "the zero point is not a constant"), std::nullopt;
    if (zero_point->dtype != DType::Int8)
      return fail(why, "the tensor is " + dtype_name(zero_point->dtype) + ", not int8"), std::nullopt;
    if (zero_point->constant->num_elements() != 1) return fail(why, "the activation is quantized per axis"), std::nullopt;
    p.zero_point = int32_t(zero_point->constant->as_int64(0));
  }
  return p;
}

std::optional<QuantTensor> dequantized(const Value* f, std::string* why) {
  if (!f) return fail(why, "an input is omitted"), std::nullopt;
  const Node* dq = f->producer;
  if (!is_op(dq, "DequantizeLinear")) return fail(why, "input " + in_quotes(f->name) + " is not dequantized"), std::nullopt;
  if (blocked(dq)) return fail(why, dq->describe() + " is blocked"), std::nullopt;
  Value* q = dq->input(0);
  if (q->dtype != DType::Int8)
    return fail(why, "input " + in_quotes(f->name) + " is dequantized from " + dtype_name(q->dtype)), std::nullopt;
  std::string w;
  auto p = per_tensor_params(dq->input(1), dq->input(2), &w);
  if (!p) return fail(why, dq->describe() + ": " + w), std::nullopt;
  return QuantTensor{q, *p};
}

std::optional<QuantWeights> constant_weights(const Value* w, const Value* scale, const Value* zero_point,
                                             int64_t channel_axis, std::string* why) {
  if (!w->is_constant()) return fail(why, "the weights are not constant"), std::nullopt;
  if (w->dtype != DType::Int8) return fail(why, "the weights are " + dtype_name(w->dtype) + ", not int8"), std::nullopt;
  if (!scale || !scale->is_constant() || scale->dtype != DType::Float32)
    return fail(why, "the weight scale is not a float32 constant"), std::nullopt;
  QuantWeights r;
  r.q = w->constant;
  r.axis = channel_axis;
  const int64_t n = scale->constant->num_elements();
  if (n != 1 && (channel_axis >= int64_t(w->shape.size()) || n != w->shape[size_t(channel_axis)]))
    return fail(why, "the weights are not quantized per tensor or per output channel"), std::nullopt;
  for (int64_t i = 0; i < n; ++i) {
    float s = float(scale->constant->as_double(i));
    if (!(s > 0.f) || !std::isfinite(s)) return fail(why, "a weight scale is not a positive finite number"), std::nullopt;
    r.scales.push_back(s);
  }
  if (zero_point) {
    if (!zero_point->is_constant()) return fail(why, "the weight zero point is not constant"), std::nullopt;
    for (int64_t i = 0; i < zero_point->constant->num_elements(); ++i)
      if (zero_point->constant->as_int64(i) != 0)
        return fail(why, "the weights are asymmetric (zero point " + std::to_string(zero_point->constant->as_int64(i)) +
                             "); the integer kernels take symmetric weights"),
               std::nullopt;
  }
  return r;
}

std::optional<QuantWeights> dequantized_weights(const Value* f, int64_t channel_axis, std::string* why) {
  if (!f) return fail(why, "the weights are omitted"), std::nullopt;
  const Node* dq = f->producer;
  if (!is_op(dq, "DequantizeLinear")) return fail(why, "the weights are float, not dequantized int8"), std::nullopt;
  if (blocked(dq)) return fail(why, dq->describe() + " is blocked"), std::nullopt;
  const Value* w = dq->input(0);
  const Value* scale = dq->input(1);
  if (scale && scale->is_constant() && scale->constant->num_elements() > 1) {
    int64_t axis = dq->attr_int("axis", 1);
    if (axis < 0) axis += int64_t(w->shape.size());
    if (axis != channel_axis)
      return fail(why, "the weights are quantized per axis " + std::to_string(axis) + ", not per output channel"),
             std::nullopt;
  }
  return constant_weights(w, scale, dq->input(2), channel_axis, why);
}

std::optional<QuantOutput> quantized_output(const Value* f, std::string* why) {
  float lo = -std::numeric_limits<float>::infinity(), hi = std::numeric_limits<float>::infinity();
  const Value* cur = f;
  for (;;) {
    if (cur->is_graph_output) return fail(why, "its float result " + in_quotes(cur->name) + " is a graph output"), std::nullopt;
    if (cur->users.size() != 1)
      return fail(why, "its float result " + in_quotes(cur->name) + " has " + std::to_string(cur->users.size()) +
                           " readers, not one QuantizeLinear"),
             std::nullopt;
    const Node* u = cur->users[0];
    if (u->input(0) != cur) return fail(why, "its float result is not the data input of " + u->describe()), std::nullopt;
    if (is_op(u, "Relu")) {
      lo = std::max(lo, 0.f);
      cur = u->outputs[0];
      continue;
    }
    if (is_op(u, "Clip")) {
      auto a = clip_bound(u, 1, "min", -std::numeric_limits<float>::infinity(), why);
      auto b = clip_bound(u, 2, "max", std::numeric_limits<float>::infinity(), why);
      if (!a || !b) return std::nullopt;
      lo = std::max(lo, *a);
      hi = std::min(hi, *b);
      cur = u->outputs[0];
      continue;
    }
    if (!is_op(u, "QuantizeLinear"))
      return fail(why, "its float result goes to " + u->describe() + ", not to a QuantizeLinear"), std::nullopt;
    if (blocked(u)) return fail(why, u->describe() + " is blocked"), std::nullopt;
    if (u->outputs[0]->dtype != DType::Int8)
      return fail(why, u->describe() + " quantizes to " + dtype_name(u->outputs[0]->dtype)), std::nullopt;
    std::string w;
    auto p = per_tensor_params(u->input(1), u->input(2), &w);
    if (!p) return fail(why, u->describe() + ": " + w), std::nullopt;
    QuantOutput r;
    r.quantize = const_cast<Node*>(u);
    r.params = *p;
    r.act_min = std::max(-128, quantize_bound(lo, *p));
    r.act_max = std::min(127, quantize_bound(hi, *p));
    return r;
  }
}

std::optional<std::vector<int32_t>> accumulator_bias(const Value* bias, float x_scale, const QuantWeights& w,
                                                     int64_t channels, std::string* why) {
  std::vector<int32_t> r;
  if (!bias) return r;
  auto acc_scale = [&](int64_t c) { return double(x_scale) * double(w.scale(c)); };
  auto store = [&](double v) -> bool {
    if (!(std::fabs(v) <= 2147483647.0)) return fail(why, "the bias does not fit int32");
    r.push_back(int32_t(v));
    return true;
  };
  const Node* dq = bias->producer;
  if (is_op(dq, "DequantizeLinear") && dq->input(0)->is_constant() && dq->input(0)->dtype == DType::Int32 &&
      dq->input(1) && dq->input(1)->is_constant() && !blocked(dq)) {
    const Constant& bq = *dq->input(0)->constant;
    const Constant& sb = *dq->input(1)->constant;
    if (bq.num_elements() != channels || (sb.num_elements() != 1 && sb.num_elements() != channels))
      return fail(why, "the bias has " + std::to_string(bq.num_elements()) + " values for " +
                           std::to_string(channels) + " channels"),
             std::nullopt;
    if (const Value* zp = dq->input(2); zp && zp->is_constant())
      for (int64_t i = 0; i < zp->constant->num_elements(); ++i)
        if (zp->constant->as_int64(i) != 0) return fail(why, "the bias zero point is not 0"), std::nullopt;
    for (int64_t c = 0; c < channels; ++c) {
      const float s = float(sb.as_double(sb.num_elements() == 1 ? 0 : c));
      const int64_t q = bq.as_int64(c);
      // The usual case: the bias is quantized with scale x_scale * w_scale[c] (as
      // a float32 product) and is already in accumulator units.
      if (s == float(x_scale * w.scale(c))) {
        r.push_back(int32_t(q));
        continue;
      }
      if (!store(std::nearbyint(double(q) * double(s) / acc_scale(c)))) return std::nullopt;
    }
    return r;
  }
  if (bias->is_constant() && dtype_is_float(bias->dtype)) {
    if (bias->constant->num_elements() != channels)
      return fail(why, "the bias does not have one value per output channel"), std::nullopt;
    for (int64_t c = 0; c < channels; ++c)
      if (!store(std::nearbyint(bias->constant->as_double(c) / acc_scale(c)))) return std::nullopt;
    return r;
  }
  return fail(why, "the bias is not a constant (dequantized int32 or float)"), std::nullopt;
}

}  // namespace kiln::quant
