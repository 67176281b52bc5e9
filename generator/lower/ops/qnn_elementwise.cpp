// KilnQAdd, KilnQSub, KilnQMul (docs/quantization.md) -> kiln_add_s8 / kiln_mul_s8
// (crt/include/kiln/nn_s8_elementwise.h), TFLite's integer arithmetic bit for bit.
// Every multiplier is computed here from the scales with TFLite's rounding
// (quant/fixed_point.h); Add/Sub's per-input first step is tabulated per int8 value.
#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "ir/kiln_ops.h"
#include "lower/lower_util.h"
#include "lower/ops/ops.h"
#include "quant/fixed_point.h"
#include "quant/folded_rescale.h"
#include "util/error.h"
#include "util/quoted.h"

namespace kiln {

namespace {

struct QBinary {
  double a_scale, b_scale, y_scale;
  int64_t a_zp, b_zp, y_zp, act_min, act_max;
};

QBinary read_qbinary(const Node& n) {
  const Value *a = n.input(0), *b = n.input(1);
  const Value* y = n.outputs.at(0);
  if (!a || !b) throw CompileError(n.describe() + ": needs a and b");
  require_dtype(n, a, DType::Int8, "input a");
  require_dtype(n, b, DType::Int8, "input b");
  require_dtype(n, y, DType::Int8, "output");
  const auto attrs = ops::get_attrs<ops::QBinary>(n);
  QBinary q;
  q.a_scale = attrs.a_scale;
  q.b_scale = attrs.b_scale;
  q.y_scale = attrs.y_scale;
  q.a_zp = attrs.a_zero_point;
  q.b_zp = attrs.b_zero_point;
  q.y_zp = attrs.y_zero_point;
  q.act_min = attrs.act_min;
  q.act_max = attrs.act_max;
  for (double s : {q.a_scale, q.b_scale, q.y_scale})
    if (!(s > 0.0) || !std::isfinite(s))
      throw CompileError(n.describe() + ": scales must be positive and finite");
  for (int64_t z : {q.a_zp, q.b_zp, q.y_zp})
    if (z < -128 || z > 127) throw CompileError(n.describe() + ": zero points must be int8 values");
  if (q.act_min < -128 || q.act_max > 127 || q.act_min > q.act_max)
    throw CompileError(n.describe() + ": act_min/act_max [" + std::to_string(q.act_min) + ", " +
                       std::to_string(q.act_max) + "] is not a range inside [-128, 127]");
  return q;
}

// kiln_s8_rescale_t for TFLite's MultiplyByQuantizedMultiplier(v, M, S) with |v| <=
// max_abs (quant/folded_rescale.h).
std::string rescale_fields(const quant::FoldedRescale& r) {
  return ParamsInit()
      .i("round_pos", r.round_pos)
      .i("round_neg", r.round_neg)
      .i("multiplier", r.multiplier)
      .i("pre_shift", r.pre_shift)
      .i("post_shift", r.post_shift)
      .str();
}

std::string rescale_init(const Node& n, quant::QuantizedMultiplier q, int64_t max_abs) {
  quant::FoldedRescale r;
  if (!quant::fold_rescale(q, max_abs, &r))
    throw CompileError(n.describe() + ": the output scale multiplier is too large for int32 arithmetic (values up to " +
                       std::to_string(max_abs) + " shifted left by " + std::to_string(q.shift) + ")");
  return rescale_fields(r);
}

std::vector<int> same_shape_inputs(const Node& n) {
  std::vector<int> r;
  for (int i = 0; i < 2; ++i)
    if (n.input(i)->shape == n.outputs[0]->shape) r.push_back(i);
  return r;
}

// TFLite's Add/Sub (left_shift 20): each input's scaled term per int8 value, the
// sum's rescale to y. Sub negates b's term (the same integer as TFLite's a - b).
KernelCall lower_qadd(const Node& n, bool subtract) {
  const QBinary q = read_qbinary(n);
  constexpr int kLeftShift = 20;
  const double twice_max_input_scale = 2.0 * std::max(q.a_scale, q.b_scale);
  const double real_a = q.a_scale / twice_max_input_scale;
  const double real_b = q.b_scale / twice_max_input_scale;
  const double real_out = twice_max_input_scale / (double(1 << kLeftShift) * q.y_scale);
  if (!(real_out < 1.0))
    throw CompileError(n.describe() + ": y_scale is too small for TFLite's int8 addition (2 * max input scale / "
                       "(2^20 * y_scale) must be below 1)");
  const quant::QuantizedMultiplier qa = quant::quantize_multiplier(real_a);
  const quant::QuantizedMultiplier qb = quant::quantize_multiplier(real_b);
  const quant::QuantizedMultiplier qo = quant::quantize_multiplier(real_out);
  std::vector<int64_t> a_term(256), b_term(256);
  int64_t max_a = 0, max_b = 0;
  for (int v = -128; v <= 127; ++v) {
    const int32_t ta = quant::multiply_by_quantized_multiplier(int32_t(v - q.a_zp) * (1 << kLeftShift), qa.multiplier,
                                                               qa.shift);
    const int32_t tb = quant::multiply_by_quantized_multiplier(int32_t(v - q.b_zp) * (1 << kLeftShift), qb.multiplier,
                                                               qb.shift);
    a_term[v + 128] = ta;
    b_term[v + 128] = subtract ? -int64_t(tb) : tb;
    max_a = std::max<int64_t>(max_a, std::llabs(ta));
    max_b = std::max<int64_t>(max_b, std::llabs(tb));
  }
  // The kernel takes the rescale's pre-shift (a doubling) from the tables.
  quant::FoldedRescale out;
  if (!quant::fold_rescale(qo, max_a + max_b, &out))
    throw CompileError(n.describe() + ": the output scale multiplier is too large for int32 arithmetic");
  for (auto* t : {&a_term, &b_term})
    for (int64_t& v : *t) v *= int64_t(1) << out.pre_shift;
  out.pre_shift = 0;
  const BroadcastPlan bp = plan_broadcast(n, n.input(0)->shape, n.input(1)->shape, n.outputs[0]->shape);
  KernelCall k;
  k.params_type = "kiln_add_s8_params_t";
  k.params_init = ParamsInit()
                      .raw("bc", broadcast_init(bp))
                      .ints("a_term", a_term)
                      .ints("b_term", b_term)
                      .raw("out", rescale_fields(out))
                      .i("out_offset", q.y_zp)
                      .i("act_min", q.act_min)
                      .i("act_max", q.act_max)
                      .str();
  k.call = "kiln_add_s8(&$params, $in0, $in1, $out0)";
  k.in_place_inputs = same_shape_inputs(n);
  return k;
}

// TFLite's Mul: (a - a_zp) * (b - b_zp) rescaled by a_scale * b_scale / y_scale.
KernelCall lower_qmul(const Node& n) {
  const QBinary q = read_qbinary(n);
  const double real = q.a_scale * q.b_scale / q.y_scale;
  const quant::QuantizedMultiplier qo = quant::quantize_multiplier(real);
  const int64_t max_a = std::max<int64_t>(std::llabs(-128 - q.a_zp), std::llabs(127 - q.a_zp));
  const int64_t max_b = std::max<int64_t>(std::llabs(-128 - q.b_zp), std::llabs(127 - q.b_zp));
  const BroadcastPlan bp = plan_broadcast(n, n.input(0)->shape, n.input(1)->shape, n.outputs[0]->shape);
  KernelCall k;
  k.params_type = "kiln_mul_s8_params_t";
  k.params_init = ParamsInit()
                      .raw("bc", broadcast_init(bp))
                      .i("a_offset", -q.a_zp)
                      .i("b_offset", -q.b_zp)
                      .raw("out", rescale_init(n, qo, max_a * max_b))
                      .i("out_offset", q.y_zp)
                      .i("act_min", q.act_min)
                      .i("act_max", q.act_max)
                      .str();
  k.call = "kiln_mul_s8(&$params, $in0, $in1, $out0)";
  k.in_place_inputs = same_shape_inputs(n);
  return k;
}

}  // namespace

void register_qnn_elementwise_lowerings() {
  register_lowering("KilnQAdd", [](const Node& n) { return lower_qadd(n, false); });
  register_lowering("KilnQSub", [](const Node& n) { return lower_qadd(n, true); });
  register_lowering("KilnQMul", lower_qmul);
}

}  // namespace kiln
