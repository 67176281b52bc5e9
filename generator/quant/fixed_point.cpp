#include "quant/fixed_point.h"

#include <cmath>
#include <limits>

namespace kiln::quant {

QuantizedMultiplier quantize_multiplier(double real_multiplier) {
  QuantizedMultiplier r;
  if (real_multiplier == 0.0 || !std::isfinite(real_multiplier)) return r;
  int exponent = 0;
  const double q = std::frexp(real_multiplier, &exponent);  // q in [0.5, 1)
  int64_t q_fixed = static_cast<int64_t>(std::round(q * double(int64_t(1) << 31)));  // half away from zero
  if (q_fixed == (int64_t(1) << 31)) {
    q_fixed /= 2;
    ++exponent;
  }
  if (exponent < -31) {  // too small to represent: the product is 0
    exponent = 0;
    q_fixed = 0;
  }
  if (exponent > 30) {  // saturate, as TFLite does
    exponent = 30;
    q_fixed = (int64_t(1) << 31) - 1;
  }
  r.multiplier = static_cast<int32_t>(q_fixed);
  r.shift = exponent;
  return r;
}

int32_t saturating_rounding_doubling_high_mul(int32_t a, int32_t b) {
  if (a == std::numeric_limits<int32_t>::min() && b == std::numeric_limits<int32_t>::min())
    return std::numeric_limits<int32_t>::max();
  const int64_t ab = int64_t(a) * int64_t(b);
  const int64_t nudge = ab >= 0 ? (int64_t(1) << 30) : (1 - (int64_t(1) << 30));
  // Division truncates toward zero, as in TFLite (not an arithmetic shift).
  return static_cast<int32_t>((ab + nudge) / (int64_t(1) << 31));
}

int32_t rounding_divide_by_pot(int32_t x, int exponent) {
  const int32_t mask = static_cast<int32_t>((int64_t(1) << exponent) - 1);
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

int32_t multiply_by_quantized_multiplier(int32_t x, int32_t multiplier, int shift) {
  const int left = shift > 0 ? shift : 0;
  const int right = shift > 0 ? 0 : -shift;
  // x * 2^left must not overflow: TFLite multiplies in int32 (wrapping is UB in C++,
  // so do it in 64 bits and saturate, which TFLite's callers never reach).
  int64_t shifted = int64_t(x) * (int64_t(1) << left);
  if (shifted > std::numeric_limits<int32_t>::max()) shifted = std::numeric_limits<int32_t>::max();
  if (shifted < std::numeric_limits<int32_t>::min()) shifted = std::numeric_limits<int32_t>::min();
  return rounding_divide_by_pot(saturating_rounding_doubling_high_mul(static_cast<int32_t>(shifted), multiplier), right);
}

}  // namespace kiln::quant
