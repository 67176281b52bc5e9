// Fixed-point arithmetic of integer (quantized) execution, as TFLite defines it.
//
// The compiler uses these to compute kernel parameters (a Q31 multiplier and a
// power-of-two shift for each real requantization scale) and to evaluate integer
// algorithms at compile time (lookup tables). The crt kernels implement the same
// run-time operations in C; docs/quantization.md states the contract.
#pragma once

#include <cstdint>

namespace kiln::quant {

// A real multiplier as M * 2^(shift - 31), M a Q31 value in [2^30, 2^31) (or 0).
struct QuantizedMultiplier {
  int32_t multiplier = 0;
  int32_t shift = 0;  // > 0: left shift before the high multiply; < 0: rounding right shift after
};

// TFLite's QuantizeMultiplier: frexp, round half away from zero to Q31.
QuantizedMultiplier quantize_multiplier(double real_multiplier);

// The high 32 bits of 2*a*b, rounded to nearest (TFLite's nudge: ties away from zero),
// saturating INT32_MIN * INT32_MIN to INT32_MAX.
int32_t saturating_rounding_doubling_high_mul(int32_t a, int32_t b);
// x / 2^exponent rounded to nearest, ties away from zero. exponent in [0, 31].
int32_t rounding_divide_by_pot(int32_t x, int exponent);
// TFLite's MultiplyByQuantizedMultiplier (the double-rounding form).
int32_t multiply_by_quantized_multiplier(int32_t x, int32_t multiplier, int shift);

}  // namespace kiln::quant
