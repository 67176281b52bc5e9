// kiln_softmax_s8 (KilnQSoftmax) against TFLite's reference int8 softmax written
// out here step by step (every element's exp evaluated with gemmlowp's functions,
// quant/gemmlowp_fixed_point.h, no table), bit for bit; and those gemmlowp
// functions against the real math they approximate.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "kiln_kernels.h"
#include "quant/fixed_point.h"
#include "quant/gemmlowp_fixed_point.h"
#include "../support/tflite_int8_reference.h"
#include "s8_test_util.h"

namespace {

namespace q = kiln::quant;

using kiln::tflite_ref::softmax;

kiln_softmax_s8_params_t kernel_params(int rows, int depth, double beta, double x_scale) {
  kiln_softmax_s8_params_t p{};
  p.rows = rows, p.depth = depth;
  q::softmax_exp_table(q::softmax_scaling(beta, x_scale), p.exp_table);
  return p;
}

void expect_matches(const std::vector<int8_t>& x, int depth, double beta, double x_scale) {
  const kiln_softmax_s8_params_t p = kernel_params(int(x.size() / depth), depth, beta, x_scale);
  std::vector<int8_t> y(x.size());
  ASSERT_EQ(kiln_softmax_s8(&p, x.data(), y.data()), KILN_OK);
  EXPECT_EQ(y, softmax(x, depth, beta, x_scale)) << "depth " << depth << " beta " << beta << " scale " << x_scale;
  std::vector<int8_t> inplace = x;  // y == x
  ASSERT_EQ(kiln_softmax_s8(&p, inplace.data(), inplace.data()), KILN_OK);
  EXPECT_EQ(inplace, y);
}

TEST(S8Softmax, MatchesTfliteReferenceOverScalesAndDepths) {
  std::mt19937 rng(31);
  std::uniform_real_distribution<float> mant(0.5f, 1.0f);
  for (int depth : {1, 2, 3, 10, 12, 100, 1000}) {
    for (int t = 0; t < 12; ++t) {
      const float x_scale = std::ldexp(mant(rng), std::uniform_int_distribution<int>(-9, 1)(rng));
      const float beta = t % 4 == 0 ? 1.0f : std::ldexp(mant(rng), std::uniform_int_distribution<int>(-1, 2)(rng));
      std::vector<int8_t> x = kiln::s8test::random_int8(rng, size_t(depth) * 3);
      expect_matches(x, depth, beta, x_scale);
    }
  }
}

TEST(S8Softmax, EveryDifferenceAndTies) {
  // One row holding every int8 value, rows of equal values (exp(0) everywhere).
  std::vector<int8_t> all(256);
  for (int v = 0; v < 256; ++v) all[v] = static_cast<int8_t>(v - 128);
  for (double scale : {1.0 / 256, 0.0390625, 0.1, 0.5, 4.0}) expect_matches(all, 256, 1.0, scale);
  expect_matches(std::vector<int8_t>(40, 17), 10, 1.0, 0.1);
  expect_matches(std::vector<int8_t>(4095, -128), 4095, 1.0, 0.02);  // the largest sum
}

TEST(S8Softmax, CloseToTheRealSoftmax) {
  std::mt19937 rng(32);
  const double x_scale = 0.0625;
  std::vector<int8_t> x = kiln::s8test::random_int8(rng, 12);
  const kiln_softmax_s8_params_t p = kernel_params(1, 12, 1.0, x_scale);
  std::vector<int8_t> y(12);
  ASSERT_EQ(kiln_softmax_s8(&p, x.data(), y.data()), KILN_OK);
  double sum = 0, mx = *std::max_element(x.begin(), x.end());
  for (int8_t v : x) sum += std::exp((v - mx) * x_scale);
  for (int c = 0; c < 12; ++c) {
    const double real = std::exp((x[c] - mx) * x_scale) / sum * 256.0 - 128.0;
    EXPECT_NEAR(y[c], std::min(real, 127.0), 1.0) << c;
  }
}

// gemmlowp's exp is a 4th-order Taylor polynomial around -1/8 on [-1/4, 0) (its
// remainder at the ends, (1/8)^5 / 120, is 2.5e-7) times rounded Q0.31 constants
// exp(-2^k): within 3e-7 of the real exp (a wrong constant or bit costs 1e-3).
TEST(GemmlowpFixedPoint, ExpOnNegativeValuesApproximatesExp) {
  EXPECT_EQ(q::exp_on_negative_values_q5_26(0), INT32_MAX);
  double worst = 0;
  for (double a = -31.9; a < 0; a += 0.0137) {
    const int32_t raw = static_cast<int32_t>(std::lround(a * (1 << 26)));
    const double got = q::exp_on_negative_values_q5_26(raw) / 2147483648.0;
    worst = std::max(worst, std::abs(got - std::exp(raw / double(1 << 26))));
  }
  EXPECT_LT(worst, 3e-7);
}

TEST(GemmlowpFixedPoint, ReciprocalApproximatesOneOverOnePlusX) {
  for (double a = 0; a < 1; a += 0.001) {
    const int32_t raw = static_cast<int32_t>(std::lround(a * 2147483647.0));
    const double got = q::one_over_one_plus_x_for_x_in_0_1(raw) / 2147483648.0;
    EXPECT_NEAR(got, 1.0 / (1.0 + raw / 2147483648.0), 2e-8) << a;
  }
}

TEST(GemmlowpFixedPoint, SoftmaxScalingAsTflite) {
  // beta * scale * 2^26 = 0.1 * 2^26 = 6710886.4 = 0.8 * 2^23: multiplier round(0.8 * 2^31), shift 23;
  // diff_min = -floor(31 * 2^26 / 2^23) = -248.
  const q::SoftmaxScaling s = q::softmax_scaling(1.0, 0.1);
  EXPECT_EQ(s.input_left_shift, 23);
  EXPECT_EQ(s.input_multiplier, static_cast<int32_t>(std::llround(0.8 * 2147483648.0)));
  EXPECT_EQ(s.diff_min, -248);
  int32_t table[256];
  q::softmax_exp_table(s, table);
  EXPECT_EQ(table[255], INT32_MAX);
  EXPECT_EQ(table[255 - 249], 0);  // below diff_min
  for (int d = 1; d <= 100; ++d) EXPECT_NEAR(table[255 - d] / 2147483648.0, std::exp(-0.1 * d), 3e-7) << d;
}

TEST(S8Softmax, RejectsBadArguments) {
  kiln_softmax_s8_params_t p = kernel_params(1, 4, 1.0, 0.1);
  std::vector<int8_t> x(4), y(4);
  EXPECT_EQ(kiln_softmax_s8(nullptr, x.data(), y.data()), KILN_ERR_NULL_POINTER);
  p.depth = 4096;
  EXPECT_EQ(kiln_softmax_s8(&p, x.data(), y.data()), KILN_ERR_BAD_ARGUMENT);
  p = kernel_params(1, 4, 1.0, 0.1);
  for (auto& e : p.exp_table) e = 0;  // no exp(0): the sum is 0
  EXPECT_EQ(kiln_softmax_s8(&p, x.data(), y.data()), KILN_ERR_BAD_ARGUMENT);
}

}  // namespace
