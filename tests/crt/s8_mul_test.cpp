// kiln_mul_s8 (KilnQMul) against TFLite's reference MulElementwise written out
// here with its double-rounding MultiplyByQuantizedMultiplier (quant/fixed_point.h):
// every pair of int8 inputs, for many scale sets (multipliers below and above 1).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "kiln_kernels.h"
#include "quant/fixed_point.h"
#include "quant/folded_rescale.h"
#include "../support/tflite_int8_reference.h"
#include "s8_test_util.h"

namespace {

using namespace kiln::s8test;
namespace q = kiln::quant;

using Quant = kiln::tflite_ref::BinaryQuant;

q::QuantizedMultiplier tflite_multiplier(const Quant& c) {  // TFLM CalculateOpDataMul
  return q::quantize_multiplier(double(c.a_scale) * double(c.b_scale) / double(c.y_scale));
}

int8_t reference(const Quant& c, q::QuantizedMultiplier, int a, int b) { return kiln::tflite_ref::mul(c, a, b); }

kiln_mul_s8_params_t kernel_params(const Quant& c, const kiln_broadcast_t& bc) {
  kiln_mul_s8_params_t p{};
  p.bc = bc;
  p.a_offset = -c.a_zp, p.b_offset = -c.b_zp;
  const int64_t max_a = std::max(std::abs(-128 - c.a_zp), std::abs(127 - c.a_zp));
  const int64_t max_b = std::max(std::abs(-128 - c.b_zp), std::abs(127 - c.b_zp));
  q::FoldedRescale r;
  EXPECT_TRUE(q::fold_rescale(tflite_multiplier(c), max_a * max_b, &r));
  p.out = {r.round_pos, r.round_neg, r.multiplier, r.pre_shift, r.post_shift};
  p.out_offset = c.y_zp, p.act_min = c.act_min, p.act_max = c.act_max;
  return p;
}

void expect_all_pairs(const Quant& c) {
  std::vector<int8_t> a(256), b(256), y(256 * 256);
  for (int v = 0; v < 256; ++v) a[v] = b[v] = static_cast<int8_t>(v - 128);
  const kiln_mul_s8_params_t p = kernel_params(c, broadcast_of({256, 1}, {1, 256}, {256, 256}));
  ASSERT_EQ(kiln_mul_s8(&p, a.data(), b.data(), y.data()), KILN_OK);
  const q::QuantizedMultiplier m = tflite_multiplier(c);
  int mismatches = 0;
  for (int i = 0; i < 256; ++i)
    for (int j = 0; j < 256; ++j) {
      const int8_t want = reference(c, m, i - 128, j - 128);
      if (y[i * 256 + j] != want && ++mismatches <= 5)
        ADD_FAILURE() << "a=" << i - 128 << " b=" << j - 128 << " got " << int(y[i * 256 + j]) << " want "
                      << int(want) << " multiplier " << m.multiplier << " shift " << m.shift;
    }
}

TEST(S8Mul, EveryInputPairManyScales) {
  std::mt19937 rng(21);
  std::uniform_real_distribution<float> mant(0.5f, 1.0f);
  std::uniform_int_distribution<int> ex(-10, -1), zp(-128, 127);
  for (int t = 0; t < 80; ++t) {
    Quant c;
    c.a_scale = std::ldexp(mant(rng), ex(rng));
    c.b_scale = std::ldexp(mant(rng), ex(rng));
    // Real multipliers from about 2^-22 up to 2^10 (shift above 0 included; TFLite's
    // int32 shift of a 16-bit product overflows beyond 2^14, which the compiler refuses).
    c.y_scale = std::ldexp(mant(rng), std::uniform_int_distribution<int>(-20, 0)(rng));
    if (tflite_multiplier(c).shift > 10) c.y_scale *= 64;
    c.a_zp = zp(rng), c.b_zp = zp(rng), c.y_zp = zp(rng);
    c.act_min = t % 3 == 0 ? std::min(c.y_zp, 126) : -128;
    c.act_max = 127;
    expect_all_pairs(c);
  }
}

TEST(S8Mul, BroadcastAndInPlace) {
  std::mt19937 rng(22);
  const Quant c = {0.03f, 0.011f, 0.004f, -9, 4, 2, -128, 127};
  const q::QuantizedMultiplier m = tflite_multiplier(c);
  const std::vector<int32_t> as = {2, 3, 5}, bs = {1, 3, 1}, out = {2, 3, 5};
  const std::vector<int8_t> a = random_int8(rng, elements(as)), b = random_int8(rng, elements(bs));
  const kiln_mul_s8_params_t p = kernel_params(c, broadcast_of(as, bs, out));
  std::vector<int8_t> y(elements(out));
  ASSERT_EQ(kiln_mul_s8(&p, a.data(), b.data(), y.data()), KILN_OK);
  std::vector<int32_t> idx(3, 0);
  size_t i = 0;
  do {
    EXPECT_EQ(y[i], reference(c, m, a[flat_index(as, idx)], b[flat_index(bs, idx)]));
    ++i;
  } while (next_index(out, idx));
  std::vector<int8_t> inplace = a;
  ASSERT_EQ(kiln_mul_s8(&p, inplace.data(), b.data(), inplace.data()), KILN_OK);
  EXPECT_EQ(inplace, y);
}

TEST(S8Mul, RejectsBadArguments) {
  kiln_mul_s8_params_t p = kernel_params({0.03f, 0.011f, 0.004f, -9, 4, 2, -128, 127}, broadcast_of({4}, {4}, {4}));
  std::vector<int8_t> a(4), y(4);
  EXPECT_EQ(kiln_mul_s8(nullptr, a.data(), a.data(), y.data()), KILN_ERR_NULL_POINTER);
  p.a_offset = 200;
  EXPECT_EQ(kiln_mul_s8(&p, a.data(), a.data(), y.data()), KILN_ERR_BAD_ARGUMENT);
}

}  // namespace
