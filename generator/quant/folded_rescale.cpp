#include "quant/folded_rescale.h"

namespace kiln::quant {

// With S <= 0 (e = -S), for P = v * M: SaturatingRoundingDoublingHighMul is
// floor((P + 2^30) / 2^31) for either sign (its nudge for negative products and
// truncating division add up to the same floor); RoundingDivideByPOT by e adds
// 2^(e-1), minus 1 for a negative value, and floors again. A floor of a floor by a
// power of two is one floor, so the result is floor((P + R) / 2^(31+e)) with
// R = 2^30 + 2^(30+e), minus 2^31 when v < 0 (for e >= 1; R = 2^30 when e = 0; for
// -2^30 <= P < 0 both choices give 0, so the sign of v decides). Doubling v
// (pre_shift 1) makes the division a high word shifted right by e.
// With S > 0 the left shift comes first: floor((v * 2^S * M + 2^30) / 2^31), i.e.
// pre_shift S + 1 and a rounding of 2^31 on the high word.
bool fold_rescale(QuantizedMultiplier q, int64_t max_abs, FoldedRescale* out) {
  FoldedRescale r;
  r.multiplier = q.multiplier;
  if (q.shift <= 0) {
    const int e = -q.shift;  // quantize_multiplier keeps e <= 31
    r.pre_shift = 1;
    r.post_shift = e;
    r.round_pos = (int64_t(1) << 31) + (e >= 1 ? int64_t(1) << (31 + e) : 0);
    r.round_neg = r.round_pos - (e >= 1 ? int64_t(1) << 32 : 0);
  } else {
    r.pre_shift = q.shift + 1;
    r.post_shift = 0;
    r.round_pos = r.round_neg = int64_t(1) << 31;
  }
  if (r.pre_shift > 30 || max_abs > (int64_t(1) << (31 - r.pre_shift)) - 1) return false;
  *out = r;
  return true;
}

int32_t apply_folded_rescale(const FoldedRescale& r, int32_t v) {
  const int64_t t = int64_t(v) * (int64_t(1) << r.pre_shift) * r.multiplier + (v < 0 ? r.round_neg : r.round_pos);
  return static_cast<int32_t>(t >> 32) >> r.post_shift;
}

}  // namespace kiln::quant
