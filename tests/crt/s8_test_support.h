// Shared by the int8 kernel tests: the compile-time parameters exactly as the
// lowerings build them (lower/ops/qnn_s8_params.h), and the reference
// requantization of docs/quantization.md written with generator/quant's
// fixed-point arithmetic (TFLite's definitions).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "kiln_kernels.h"
#include "lower/ops/qnn_s8_params.h"
#include "quant/fixed_point.h"

namespace s8test {

inline std::vector<kiln_s8_requant_t> requant_table(const std::vector<double>& scales, int32_t y_zp) {
  kiln::ConstantPtr c = kiln::s8_requant_table(scales, y_zp);
  std::vector<kiln_s8_requant_t> t(scales.size());
  EXPECT_EQ(c->size_bytes(), t.size() * sizeof(kiln_s8_requant_t));
  std::memcpy(t.data(), c->data(), c->size_bytes());
  return t;
}

inline std::vector<int16_t> to_int16(const kiln::ConstantPtr& c) {
  std::vector<int16_t> v(c->size_bytes() / 2);
  std::memcpy(v.data(), c->data(), c->size_bytes());
  return v;
}

// y = clamp(zp + MultiplyByQuantizedMultiplier(acc, M, S)) with M, S from the scale.
inline int8_t reference_output(int32_t acc, double scale, int32_t y_zp, int32_t act_min, int32_t act_max) {
  const kiln::quant::QuantizedMultiplier qm = kiln::quant::quantize_multiplier(scale);
  const int64_t v = int64_t(y_zp) + kiln::quant::multiply_by_quantized_multiplier(acc, qm.multiplier, qm.shift);
  return int8_t(std::clamp<int64_t>(v, act_min, act_max));
}

struct Quant {
  int32_t x_zp = 0, y_zp = 0, act_min = -128, act_max = 127;
  std::vector<double> scales;  // one per output channel
};

// Random zero points, clamps, and per-tensor or per-channel scales around a
// typical magnitude (so outputs cover the int8 range rather than saturate).
inline Quant random_quant(std::mt19937& rng, int channels, double typical_scale) {
  Quant q;
  std::uniform_int_distribution<int> zp(-128, 127), coin(0, 3);
  q.x_zp = zp(rng);
  q.y_zp = zp(rng);
  if (coin(rng) == 0) {  // a fused Relu-like clamp
    q.act_min = std::max(q.y_zp, -128);
    q.act_max = coin(rng) == 0 ? std::min(q.y_zp + 60, 127) : 127;
  }
  std::uniform_real_distribution<double> f(0.25, 4.0);
  const bool per_channel = coin(rng) != 0;
  const double s0 = typical_scale * f(rng);
  for (int c = 0; c < channels; ++c) q.scales.push_back(per_channel ? typical_scale * f(rng) : s0);
  return q;
}

inline std::vector<int8_t> random_int8(std::mt19937& rng, size_t n, int lo = -128, int hi = 127) {
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<int8_t> v(n);
  for (auto& x : v) x = int8_t(d(rng));
  return v;
}

inline std::vector<int32_t> random_bias(std::mt19937& rng, size_t n) {
  std::uniform_int_distribution<int32_t> d(-20000, 20000);
  std::vector<int32_t> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

}  // namespace s8test
