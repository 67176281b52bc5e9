// TFLite's MultiplyByQuantizedMultiplier with its two roundings folded into one
// 64-bit multiply-add and shift: the parameters of the crt's kiln_s8_rescale_t
// (crt/include/kiln/nn_s8_elementwise.h), exactly equal for every input in range.
#pragma once

#include <cstdint>

#include "quant/fixed_point.h"

namespace kiln::quant {

struct FoldedRescale {
  int64_t round_pos = 0, round_neg = 0;
  int32_t multiplier = 0;
  int32_t pre_shift = 0;   // 0..30
  int32_t post_shift = 0;  // 0..31
};

// The folded form of multiply_by_quantized_multiplier(v, q.multiplier, q.shift) for
// |v| <= max_abs. Returns false when v * 2^pre_shift could leave int32 (a real
// multiplier too large for the values).
bool fold_rescale(QuantizedMultiplier q, int64_t max_abs, FoldedRescale* out);

// The kernel's arithmetic, for tests and compile-time evaluation.
int32_t apply_folded_rescale(const FoldedRescale& r, int32_t v);

}  // namespace kiln::quant
