#include "tflite/lookup_tables.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <stdexcept>

#include "quant/fixed_point.h"
#include "util/float_to_int.h"
#include "quant/gemmlowp_activations.h"

namespace kiln::tflite {

namespace {

int8_t clamp_int8(int64_t v) { return int8_t(std::clamp<int64_t>(v, -128, 127)); }

// zero_point + x * multiplier in 64 bits: with a huge scale ratio the product
// saturates near INT32_MIN/MAX and adding the zero point would overflow int32.
int64_t rescale(int32_t zero_point, int32_t x, const quant::QuantizedMultiplier& m) {
  return int64_t(zero_point) + quant::multiply_by_quantized_multiplier(x, m.multiplier, m.shift);
}

template <class F>
LookupTable tabulate(F f) {
  LookupTable t{};
  for (int i = 0; i < 256; ++i) t[i] = f(int32_t(i - 128));
  return t;
}

}  // namespace

LookupTable requantize_table(QuantParams in, QuantParams out) {
  // TFLite's quantize kernel: the ratio in double from the float32 scales.
  const auto m = quant::quantize_multiplier(double(in.scale) / double(out.scale));
  return tabulate([&](int32_t x) {
    return clamp_int8(rescale(out.zero_point, x - in.zero_point, m));
  });
}

LookupTable relu_table(QuantParams in, QuantParams out, float act_min, float act_max) {
  // TFLite's ReluX on int8: requantize, then clamp to the activation's bounds
  // quantized on the output (roundf of a float division).
  const auto m = quant::quantize_multiplier(double(in.scale) / double(out.scale));
  // (saturated: with a denormal scale the quotient is inf)
  const int32_t lo = int32_t(std::clamp<int64_t>(out.zero_point + saturated_round(act_min / out.scale), -128, 127));
  const int32_t hi = act_max == std::numeric_limits<float>::infinity()
                         ? 127
                         : int32_t(std::clamp<int64_t>(out.zero_point + saturated_round(act_max / out.scale), -128, 127));
  return tabulate([&](int32_t x) {
    return int8_t(std::clamp<int64_t>(rescale(out.zero_point, x - in.zero_point, m), lo, hi));
  });
}

LookupTable relu6_table(QuantParams in) {
  // TFLite Micro's FloatToQuantizedType: round(6 / scale) + zero_point, clamped.
  const int32_t six = int32_t(std::clamp<int64_t>(saturated_round(6.0f / in.scale) + in.zero_point, -128, 127));
  const int32_t zero = in.zero_point;
  return tabulate([&](int32_t x) { return int8_t(x > six ? six : x < zero ? zero : x); });
}

LookupTable leaky_relu_table(QuantParams in, QuantParams out, float alpha) {
  // The ratios in float, then widened (TFLite Micro's leaky_relu_common.cc).
  const auto alpha_m = quant::quantize_multiplier(double(in.scale * alpha / out.scale));
  const auto identity_m = quant::quantize_multiplier(double(in.scale / out.scale));
  return tabulate([&](int32_t x) {
    const int32_t v = x - in.zero_point;
    const auto& m = v >= 0 ? identity_m : alpha_m;
    return clamp_int8(rescale(out.zero_point, v, m));
  });
}

namespace {

// The input rescaling of TFLite's int8 LOGISTIC and TANH: the input scale times
// 2^27 (4 integer bits) as a Q31 multiplier and left shift, and the radius beyond
// which the output saturates (CalculateInputRadius).
struct Q4Input {
  int32_t multiplier = 0;
  int left_shift = 0;
  int32_t radius = 0;
};

Q4Input q4_input(float scale) {
  constexpr int kInputIntegerBits = 4;
  const double real = double(scale) * double(1 << (31 - kInputIntegerBits));
  Q4Input r;
  const double q = std::frexp(real, &r.left_shift);
  const double m = std::round(q * double(int64_t(1) << 31));
  if (m >= double(int64_t(1) << 31) || r.left_shift < 0 || r.left_shift > 31)
    throw std::invalid_argument("input scale " + std::to_string(scale) + " is out of the range TFLite's kernel handles");
  r.multiplier = int32_t(m);
  const double max_input_rescaled = 1.0 * ((1 << kInputIntegerBits) - 1) *
                                    double(int64_t(1) << (31 - kInputIntegerBits)) /
                                    double(int64_t(1) << r.left_shift);
  r.radius = int32_t(std::floor(max_input_rescaled));
  return r;
}

}  // namespace

LookupTable logistic_table(QuantParams in) {
  const Q4Input p = q4_input(in.scale);
  return tabulate([&](int32_t x) -> int8_t {
    const int32_t v = x - in.zero_point;
    if (v <= -p.radius) return -128;
    if (v >= p.radius) return 127;
    const int32_t in_q4 = quant::multiply_by_quantized_multiplier(v, p.multiplier, p.left_shift);
    const int32_t out_q0 = quant::gemmlowp_logistic(in_q4, 4);
    return clamp_int8(quant::rounding_divide_by_pot(out_q0, 31 - 8) - 128);
  });
}

LookupTable tanh_table(QuantParams in) {
  const Q4Input p = q4_input(in.scale);
  return tabulate([&](int32_t x) -> int8_t {
    const int32_t v = x - in.zero_point;
    if (v <= -p.radius) return -128;
    if (v >= p.radius) return 127;
    const int32_t in_q4 = quant::multiply_by_quantized_multiplier(v, p.multiplier, p.left_shift);
    const int32_t out_q0 = quant::gemmlowp_tanh(in_q4, 4);
    return clamp_int8(quant::rounding_divide_by_pot(out_q0, 31 - 7));
  });
}

namespace {

// TFLite's DownScaleInt32ToInt16Multiplier: a Q31 multiplier rounded to Q15.
int16_t down_scale_to_int16(int32_t m) {
  constexpr int32_t kRoundingOffset = 1 << 15;
  if (m >= std::numeric_limits<int32_t>::max() - kRoundingOffset) return std::numeric_limits<int16_t>::max();
  return int16_t((m + kRoundingOffset) >> 16);
}

int16_t saturating_left_shift_16(int16_t v, int amount) {
  const int64_t r = int64_t(v) * (int64_t(1) << std::min(amount, 40));
  return int16_t(std::clamp<int64_t>(r, std::numeric_limits<int16_t>::min(), std::numeric_limits<int16_t>::max()));
}

// SQDMULH: the doubled high half, truncated toward zero.
int16_t saturating_doubling_high_mul_16(int16_t a, int16_t b) {
  if (a == b && a == std::numeric_limits<int16_t>::min()) return std::numeric_limits<int16_t>::max();
  return int16_t((int32_t(a) * int32_t(b)) / (1 << 15));
}

}  // namespace

LookupTable hard_swish_table(QuantParams in, QuantParams out) {
  // Parameters as TFLite Micro's hard_swish_common.cc computes them (float ratios).
  const float hires_input_scale = (1.0f / 128.0f) * in.scale;
  const float reluish_scale = 3.0f / 32768.0f;
  const auto om = quant::quantize_multiplier(double(hires_input_scale / out.scale));
  const auto rm = quant::quantize_multiplier(double(hires_input_scale / reluish_scale));
  if (om.shift > 0)
    throw std::invalid_argument("the output scale is too small for TFLite's HARD_SWISH kernel (exponent > 0)");
  const int16_t output_multiplier = down_scale_to_int16(om.multiplier);
  const int16_t reluish_multiplier = down_scale_to_int16(rm.multiplier);
  return tabulate([&](int32_t x) -> int8_t {
    const int16_t input_value = int16_t(x - in.zero_point);
    const int16_t hires = int16_t(input_value * (1 << 7));
    const int16_t preshift_output = quant::saturating_rounding_doubling_high_mul_16(hires, output_multiplier);
    int16_t reluish = hires;
    if (rm.shift > 0) reluish = saturating_left_shift_16(reluish, rm.shift - 1);
    reluish = quant::saturating_rounding_doubling_high_mul_16(reluish, reluish_multiplier);
    if (rm.shift > 0) reluish = saturating_left_shift_16(reluish, 1);
    if (rm.shift < 0) reluish = quant::rounding_divide_by_pot_16(reluish, -rm.shift);
    reluish = int16_t((int32_t(reluish) + (1 << 15)) >> 1);
    const int16_t preshift = saturating_doubling_high_mul_16(reluish, preshift_output);
    int16_t value = quant::rounding_divide_by_pot_16(preshift, -om.shift);
    value = int16_t(value + out.zero_point);
    return int8_t(std::clamp<int16_t>(value, -128, 127));
  });
}

ConstantPtr table_constant(const LookupTable& t) {
  std::vector<uint8_t> bytes(t.size());
  for (size_t i = 0; i < t.size(); ++i) bytes[i] = uint8_t(t[i]);
  return Constant::from_bytes(DType::Int8, {256}, std::move(bytes));
}

}  // namespace kiln::tflite
