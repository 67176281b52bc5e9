// kiln_add_s8 (KilnQAdd / KilnQSub) against TFLite's reference AddFunc / SubFunc
// written out here with TFLite's double-rounding fixed-point steps
// (quant/fixed_point.h): every pair of int8 inputs, for many scale sets, bit for bit.
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

// TFLite's Prepare for int8 Add/Sub (left_shift 20).
struct TfliteAddParams {
  q::QuantizedMultiplier a, b, out;
};
TfliteAddParams tflite_prepare(const Quant& c) {
  const double twice_max = 2 * static_cast<double>(std::max(c.a_scale, c.b_scale));
  return {q::quantize_multiplier(double(c.a_scale) / twice_max), q::quantize_multiplier(double(c.b_scale) / twice_max),
          q::quantize_multiplier(twice_max / ((1 << 20) * double(c.y_scale)))};
}

int8_t reference(const Quant& c, const TfliteAddParams&, int a, int b, bool subtract) {
  return kiln::tflite_ref::add(c, a, b, subtract);
}

// The kernel parameters as the lowering builds them (lower/ops/qnn_elementwise.cpp).
kiln_add_s8_params_t kernel_params(const Quant& c, bool subtract, const kiln_broadcast_t& bc) {
  const TfliteAddParams t = tflite_prepare(c);
  kiln_add_s8_params_t p{};
  p.bc = bc;
  int64_t max_a = 0, max_b = 0;
  for (int v = -128; v <= 127; ++v) {
    p.a_term[v + 128] = q::multiply_by_quantized_multiplier((v - c.a_zp) * (1 << 20), t.a.multiplier, t.a.shift);
    const int32_t tb = q::multiply_by_quantized_multiplier((v - c.b_zp) * (1 << 20), t.b.multiplier, t.b.shift);
    p.b_term[v + 128] = subtract ? -tb : tb;
    max_a = std::max<int64_t>(max_a, std::abs(p.a_term[v + 128]));
    max_b = std::max<int64_t>(max_b, std::abs(tb));
  }
  q::FoldedRescale r;
  EXPECT_TRUE(q::fold_rescale(t.out, max_a + max_b, &r));
  for (int v = 0; v < 256; ++v) p.a_term[v] *= 1 << r.pre_shift, p.b_term[v] *= 1 << r.pre_shift;  // as the lowering
  p.out = {r.round_pos, r.round_neg, r.multiplier, 0, r.post_shift};
  p.out_offset = c.y_zp, p.act_min = c.act_min, p.act_max = c.act_max;
  return p;
}

Quant random_quant(std::mt19937& rng) {
  std::uniform_real_distribution<float> mant(0.5f, 1.0f);
  std::uniform_int_distribution<int> ex(-12, -2), zp(-128, 127), shift(-3, 2);
  Quant c;
  c.a_scale = std::ldexp(mant(rng), ex(rng));
  c.b_scale = std::uniform_int_distribution<int>(0, 4)(rng) == 0 ? c.a_scale : std::ldexp(mant(rng), ex(rng));
  c.y_scale = std::ldexp(mant(rng), std::max(ex(rng), int(std::ilogb(std::max(c.a_scale, c.b_scale)))) + shift(rng));
  c.a_zp = zp(rng), c.b_zp = zp(rng), c.y_zp = zp(rng);
  c.act_min = -128, c.act_max = 127;
  if (std::uniform_int_distribution<int>(0, 3)(rng) == 0) c.act_min = std::min(c.y_zp, 126);  // fused Relu
  return c;
}

// Every (a, b) pair: a is [256, 1] holding -128..127, b is [1, 256].
void expect_all_pairs(const Quant& c, bool subtract) {
  std::vector<int8_t> a(256), b(256), y(256 * 256);
  for (int v = 0; v < 256; ++v) a[v] = b[v] = static_cast<int8_t>(v - 128);
  const kiln_add_s8_params_t p = kernel_params(c, subtract, broadcast_of({256, 1}, {1, 256}, {256, 256}));
  ASSERT_EQ(kiln_add_s8(&p, a.data(), b.data(), y.data()), KILN_OK);
  const TfliteAddParams t = tflite_prepare(c);
  int mismatches = 0;
  for (int i = 0; i < 256 && mismatches < 5; ++i)
    for (int j = 0; j < 256; ++j) {
      const int8_t want = reference(c, t, i - 128, j - 128, subtract);
      if (y[i * 256 + j] != want && ++mismatches <= 5)
        ADD_FAILURE() << (subtract ? "sub" : "add") << " a=" << i - 128 << " b=" << j - 128 << " got "
                      << int(y[i * 256 + j]) << " want " << int(want) << " scales " << c.a_scale << " " << c.b_scale
                      << " " << c.y_scale << " zps " << c.a_zp << " " << c.b_zp << " " << c.y_zp;
    }
}

TEST(S8Add, EveryInputPairManyScales) {
  std::mt19937 rng(11);
  for (int t = 0; t < 60; ++t) {
    const Quant c = random_quant(rng);
    expect_all_pairs(c, false);
    expect_all_pairs(c, true);
  }
}

TEST(S8Add, ResNetLikeScales) {  // equal-magnitude scales and an output scale of twice theirs
  expect_all_pairs({0.0235f, 0.0312f, 0.0467f, -5, 12, -20, -20, 127}, false);
  expect_all_pairs({0.05f, 0.05f, 0.05f, 0, 0, 0, -128, 127}, true);
}

// Broadcast shapes, merged and not, and in place (y == a).
TEST(S8Add, BroadcastShapesAndInPlace) {
  std::mt19937 rng(12);
  const Quant c = {0.02f, 0.07f, 0.06f, 3, -7, 1, -128, 127};
  const TfliteAddParams t = tflite_prepare(c);
  const std::vector<std::vector<std::vector<int32_t>>> cases = {
      {{2, 3, 4, 5}, {2, 3, 4, 5}}, {{2, 3, 4, 5}, {1, 1, 1, 5}}, {{2, 3, 4, 5}, {1, 3, 1, 1}},
      {{1, 3, 1, 5}, {2, 1, 4, 1}}, {{2, 1, 4, 5}, {1, 1, 1, 1}},  {{1, 1, 1, 1}, {3, 1, 2, 7}}};
  for (const auto& sh : cases) {
    std::vector<int32_t> out(4);
    for (int k = 0; k < 4; ++k) out[k] = std::max(sh[0][k], sh[1][k]);
    const std::vector<int8_t> a = random_int8(rng, elements(sh[0])), b = random_int8(rng, elements(sh[1]));
    for (bool subtract : {false, true}) {
      const kiln_add_s8_params_t p = kernel_params(c, subtract, broadcast_of(sh[0], sh[1], out));
      std::vector<int8_t> y(elements(out));
      ASSERT_EQ(kiln_add_s8(&p, a.data(), b.data(), y.data()), KILN_OK);
      std::vector<int32_t> idx(4, 0);
      size_t i = 0;
      do {
        EXPECT_EQ(y[i], reference(c, t, a[flat_index(sh[0], idx)], b[flat_index(sh[1], idx)], subtract)) << i;
        ++i;
      } while (next_index(out, idx));
      if (sh[0] == out) {  // in place over a
        std::vector<int8_t> inplace = a;
        ASSERT_EQ(kiln_add_s8(&p, inplace.data(), b.data(), inplace.data()), KILN_OK);
        EXPECT_EQ(inplace, y);
      }
    }
  }
}

TEST(S8Add, RejectsBadArguments) {
  const Quant c = {0.02f, 0.07f, 0.06f, 3, -7, 1, -128, 127};
  kiln_add_s8_params_t p = kernel_params(c, false, broadcast_of({4}, {4}, {4}));
  std::vector<int8_t> a(4), y(4);
  EXPECT_EQ(kiln_add_s8(&p, a.data(), nullptr, y.data()), KILN_ERR_NULL_POINTER);
  p.out.post_shift = 40;
  EXPECT_EQ(kiln_add_s8(&p, a.data(), a.data(), y.data()), KILN_ERR_BAD_ARGUMENT);
  p = kernel_params(c, false, broadcast_of({4}, {4}, {4}));
  p.bc.ndim = 0;
  EXPECT_EQ(kiln_add_s8(&p, a.data(), a.data(), y.data()), KILN_ERR_BAD_ARGUMENT);
}

}  // namespace
