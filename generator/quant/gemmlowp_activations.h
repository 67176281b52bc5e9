// gemmlowp's fixed-point logistic and tanh, as TFLite's int8 kernels call them,
// for computing lookup tables at compile time (tflite/lookup_tables.cpp).
//
// A raw int32 value of a format with I integer bits stands for raw / 2^(31 - I).
// Each function follows gemmlowp's fixedpoint.h step by step (its Taylor
// polynomial for exp on [-1/4, 0), the barrel shifter of exp(-2^k) constants, and
// Newton-Raphson division), with int32 wrap-around where gemmlowp relies on it and
// SaturatingRoundingDoublingHighMul for every product.
#pragma once

#include <cstdint>

namespace kiln::quant {

// exp(a) for a <= 0; a has `integer_bits` integer bits (0..6), the result 0.
int32_t gemmlowp_exp_on_negative_values(int32_t a, int integer_bits);
// 1 / (1 + a) for a in [0, 1): a and result in Q0.31 (gemmlowp's
// one_over_one_plus_x_for_x_in_0_1, Newton-Raphson in Q2.29).
int32_t gemmlowp_one_over_one_plus_x(int32_t a);
// 1 / (1 + exp(-a)) for any a with `integer_bits` integer bits; result Q0.31.
int32_t gemmlowp_logistic(int32_t a, int integer_bits);
// tanh(a) for any a with `integer_bits` integer bits; result Q0.31.
int32_t gemmlowp_tanh(int32_t a, int integer_bits);

// gemmlowp's int16 SaturatingRoundingDoublingHighMul and RoundingDivideByPOT.
int16_t saturating_rounding_doubling_high_mul_16(int16_t a, int16_t b);
int16_t rounding_divide_by_pot_16(int16_t x, int exponent);

}  // namespace kiln::quant
