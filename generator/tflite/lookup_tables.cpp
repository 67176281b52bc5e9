#include "tflite/lookup_tables.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "quant/fixed_point.h"

namespace kiln::tflite {

namespace {

int8_t clamp_int8(int32_t v) { return int8_t(std::clamp<int32_t>(v, -128, 127)); }

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
    return clamp_int8(out.zero_point + quant::multiply_by_quantized_multiplier(x - in.zero_point, m.multiplier, m.shift));
  });
}

LookupTable relu_table(QuantParams in, QuantParams out, float act_min, float act_max) {
  // TFLite's ReluX on int8: requantize, then clamp to the activation's bounds
  // quantized on the output (roundf of a float division).
  const auto m = quant::quantize_multiplier(double(in.scale) / double(out.scale));
  const int32_t lo = std::max<int32_t>(-128, out.zero_point + int32_t(std::round(act_min / out.scale)));
  const int32_t hi = act_max == std::numeric_limits<float>::infinity()
                         ? 127
                         : std::min<int32_t>(127, out.zero_point + int32_t(std::round(act_max / out.scale)));
  return tabulate([&](int32_t x) {
    const int32_t v = out.zero_point + quant::multiply_by_quantized_multiplier(x - in.zero_point, m.multiplier, m.shift);
    return int8_t(std::clamp(v, lo, hi));
  });
}

ConstantPtr table_constant(const LookupTable& t) {
  std::vector<uint8_t> bytes(t.size());
  for (size_t i = 0; i < t.size(); ++i) bytes[i] = uint8_t(t[i]);
  return Constant::from_bytes(DType::Int8, {256}, std::move(bytes));
}

}  // namespace kiln::tflite
