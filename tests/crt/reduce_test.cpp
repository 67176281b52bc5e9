// Unit tests of the reduction-family kernels (Reduce*, ArgMax/ArgMin, CumSum, TopK,
// LogSoftmax, Hardmax) against reference loops written here.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

extern "C" {
#include "kiln_kernels.h"
}

namespace {

std::vector<float> ramp(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = std::sin(float(i) * 0.7f) * 3.0f + 0.25f * float(i % 4);
  return v;
}

kiln_reduce_params_t reduce_params(kiln_reduce_op_t op, std::vector<int32_t> shape, uint32_t mask, uint32_t out_count) {
  kiln_reduce_params_t p = {};
  p.op = op;
  p.ndim = uint32_t(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) p.shape[d] = shape[d];
  p.axes_mask = mask;
  p.out_count = out_count;
  return p;
}

// x is [2, 3, 4]; reducing the middle axis: out[i][k] over j.
TEST(Reduce, MiddleAxisAllOpsMatchReference) {
  const std::vector<float> x = ramp(24);
  struct Case { kiln_reduce_op_t op; } cases[] = {
      {KILN_REDUCE_SUM}, {KILN_REDUCE_MEAN}, {KILN_REDUCE_MAX}, {KILN_REDUCE_MIN}, {KILN_REDUCE_PROD},
      {KILN_REDUCE_L1}, {KILN_REDUCE_L2}, {KILN_REDUCE_SUM_SQUARE}, {KILN_REDUCE_LOG_SUM_EXP}};
  for (const Case& c : cases) {
    kiln_reduce_params_t p = reduce_params(c.op, {2, 3, 4}, 0x2u, 8u);
    std::vector<float> y(8);
    ASSERT_EQ(kiln_reduce_f32(&p, x.data(), nullptr, y.data()), KILN_OK);
    for (int i = 0; i < 2; ++i)
      for (int k = 0; k < 4; ++k) {
        double sum = 0, prod = 1, mx = -1e30, mn = 1e30, l1 = 0, sq = 0, se = 0;
        for (int j = 0; j < 3; ++j) {
          const double v = x[size_t(i * 12 + j * 4 + k)];
          sum += v, prod *= v, mx = std::max(mx, v), mn = std::min(mn, v), l1 += std::fabs(v), sq += v * v;
          se += std::exp(v);
        }
        double want = 0;
        switch (c.op) {
          case KILN_REDUCE_SUM: want = sum; break;
          case KILN_REDUCE_MEAN: want = sum / 3; break;
          case KILN_REDUCE_MAX: want = mx; break;
          case KILN_REDUCE_MIN: want = mn; break;
          case KILN_REDUCE_PROD: want = prod; break;
          case KILN_REDUCE_L1: want = l1; break;
          case KILN_REDUCE_L2: want = std::sqrt(sq); break;
          case KILN_REDUCE_SUM_SQUARE: want = sq; break;
          default: want = std::log(se); break;
        }
        EXPECT_NEAR(y[size_t(i * 4 + k)], want, 1e-4) << "op " << c.op << " at " << i << "," << k;
      }
  }
}

TEST(Reduce, RuntimeAxesAreReadAndChecked) {
  // [2, 2] -> [2]: which axis is reduced is only known from the runtime axes.
  const int32_t x[] = {1, 2, 30, 40};
  int32_t y[2];
  kiln_reduce_params_t p = reduce_params(KILN_REDUCE_SUM, {2, 2}, 0u, 2u);
  p.num_axes = 1;
  const int64_t ax0[] = {0}, ax1[] = {-1};
  ASSERT_EQ(kiln_reduce_i32(&p, x, ax0, y), KILN_OK);
  EXPECT_EQ(y[0], 31);
  EXPECT_EQ(y[1], 42);
  ASSERT_EQ(kiln_reduce_i32(&p, x, ax1, y), KILN_OK);
  EXPECT_EQ(y[0], 3);
  EXPECT_EQ(y[1], 70);
  const int64_t bad[] = {2};
  EXPECT_EQ(kiln_reduce_i32(&p, x, bad, y), KILN_ERR_BAD_ARGUMENT);
  // Axes that give a different output size than planned are rejected.
  p.num_axes = 2;
  const int64_t two[] = {0, 1};
  EXPECT_EQ(kiln_reduce_i32(&p, x, two, y), KILN_ERR_BAD_ARGUMENT);
}

TEST(Reduce, IntegerSumWrapsAndMeanTruncates) {
  const int8_t x[] = {100, 100, -7};
  int8_t y[1];
  kiln_reduce_params_t p = reduce_params(KILN_REDUCE_SUM, {3}, 1u, 1u);
  ASSERT_EQ(kiln_reduce_i8(&p, x, nullptr, y), KILN_OK);
  EXPECT_EQ(y[0], int8_t(uint8_t(193)));  // 193 wraps to -63
  p.op = KILN_REDUCE_MEAN;
  const int8_t z[] = {-3, -4};
  p.shape[0] = 2;
  ASSERT_EQ(kiln_reduce_i8(&p, z, nullptr, y), KILN_OK);
  EXPECT_EQ(y[0], -3);  // -3.5 truncated toward zero
  p.op = KILN_REDUCE_L2;
  EXPECT_EQ(kiln_reduce_i8(&p, z, nullptr, y), KILN_ERR_BAD_ARGUMENT);
}

TEST(ArgMinMax, TiesPickFirstOrLast) {
  const float x[] = {1, 5, 5, 0, /* row 2 */ 2, 2, -1, 2};
  int64_t y[2];
  kiln_argminmax_params_t p = {2, 4, 1, 0, 0};
  ASSERT_EQ(kiln_argminmax_f32(&p, x, y), KILN_OK);
  EXPECT_EQ(y[0], 1);
  EXPECT_EQ(y[1], 0);
  p.select_last_index = 1;
  ASSERT_EQ(kiln_argminmax_f32(&p, x, y), KILN_OK);
  EXPECT_EQ(y[0], 2);
  EXPECT_EQ(y[1], 3);
  p.is_min = 1;
  p.select_last_index = 0;
  ASSERT_EQ(kiln_argminmax_f32(&p, x, y), KILN_OK);
  EXPECT_EQ(y[0], 3);
  EXPECT_EQ(y[1], 2);
}

TEST(CumSum, ExclusiveReverseAndRuntimeAxis) {
  const double x[] = {1, 2, 3, 4, 5, 6};  // [2, 3]
  double y[6];
  kiln_cumsum_params_t p = {};
  p.ndim = 2;
  p.shape[0] = 2;
  p.shape[1] = 3;
  p.axis = 1;
  ASSERT_EQ(kiln_cumsum_f64(&p, x, nullptr, y), KILN_OK);
  EXPECT_EQ(std::vector<double>(y, y + 6), (std::vector<double>{1, 3, 6, 4, 9, 15}));
  p.exclusive = 1;
  p.reverse = 1;
  ASSERT_EQ(kiln_cumsum_f64(&p, x, nullptr, y), KILN_OK);
  EXPECT_EQ(std::vector<double>(y, y + 6), (std::vector<double>{5, 3, 0, 11, 6, 0}));
  p.exclusive = 0;
  p.reverse = 0;
  p.axis_size = 4;
  const int32_t axis0 = -2;
  ASSERT_EQ(kiln_cumsum_f64(&p, x, &axis0, y), KILN_OK);
  EXPECT_EQ(std::vector<double>(y, y + 6), (std::vector<double>{1, 2, 3, 5, 7, 9}));
  const int32_t bad = 2;
  EXPECT_EQ(kiln_cumsum_f64(&p, x, &bad, y), KILN_ERR_BAD_ARGUMENT);
}

TEST(TopK, SortedWithStableTies) {
  const int32_t x[] = {3, 9, 3, 7, 9, 1};
  int32_t v[3];
  int64_t i[3];
  kiln_topk_params_t p = {1, 6, 1, 3, 1};
  ASSERT_EQ(kiln_topk_i32(&p, x, nullptr, v, i), KILN_OK);
  EXPECT_EQ(std::vector<int32_t>(v, v + 3), (std::vector<int32_t>{9, 9, 7}));
  EXPECT_EQ(std::vector<int64_t>(i, i + 3), (std::vector<int64_t>{1, 4, 3}));
  p.largest = 0;
  ASSERT_EQ(kiln_topk_i32(&p, x, nullptr, v, i), KILN_OK);
  EXPECT_EQ(std::vector<int32_t>(v, v + 3), (std::vector<int32_t>{1, 3, 3}));
  EXPECT_EQ(std::vector<int64_t>(i, i + 3), (std::vector<int64_t>{5, 0, 2}));
  const int64_t wrong_k = 2;
  EXPECT_EQ(kiln_topk_i32(&p, x, &wrong_k, v, i), KILN_ERR_BAD_ARGUMENT);
}

TEST(SoftmaxFamily, LogSoftmaxAndHardmaxInPlace) {
  std::vector<float> x = {1000.0f, 1001.0f, 999.0f, 0.5f, 0.5f, -2.0f};  // [2, 3] over axis 1
  const std::vector<float> orig = x;
  kiln_softmax_params_t p = {2, 3, 1};
  ASSERT_EQ(kiln_logsoftmax_f32(&p, x.data(), x.data()), KILN_OK);
  for (int r = 0; r < 2; ++r) {
    double m = -1e30, s = 0;
    for (int a = 0; a < 3; ++a) m = std::max(m, double(orig[size_t(r * 3 + a)]));
    for (int a = 0; a < 3; ++a) s += std::exp(orig[size_t(r * 3 + a)] - m);
    for (int a = 0; a < 3; ++a) EXPECT_NEAR(x[size_t(r * 3 + a)], orig[size_t(r * 3 + a)] - m - std::log(s), 1e-4);
  }
  std::vector<float> h(6);
  ASSERT_EQ(kiln_hardmax_f32(&p, orig.data(), h.data()), KILN_OK);
  EXPECT_EQ(h, (std::vector<float>{0, 1, 0, 1, 0, 0}));  // first maximum wins a tie
}

TEST(Reduce, UnsignedAndInt64MaxMinProdOverLeadingAxis) {
  const uint8_t u[] = {200, 3, 255, 0, 7, 9};  // [3, 2] over axis 0
  uint8_t uy[2];
  kiln_reduce_params_t p = reduce_params(KILN_REDUCE_MAX, {3, 2}, 0x1u, 2u);
  ASSERT_EQ(kiln_reduce_u8(&p, u, nullptr, uy), KILN_OK);
  EXPECT_EQ(uy[0], 255);
  EXPECT_EQ(uy[1], 9);
  p.op = KILN_REDUCE_MIN;
  ASSERT_EQ(kiln_reduce_u8(&p, u, nullptr, uy), KILN_OK);
  EXPECT_EQ(uy[0], 7);
  EXPECT_EQ(uy[1], 0);
  const int64_t x[] = {-3, 4, 5, -2, 2, 10};
  int64_t y[2];
  p.op = KILN_REDUCE_PROD;
  ASSERT_EQ(kiln_reduce_i64(&p, x, nullptr, y), KILN_OK);
  EXPECT_EQ(y[0], -30);
  EXPECT_EQ(y[1], -80);
  p.op = KILN_REDUCE_L1;
  ASSERT_EQ(kiln_reduce_i64(&p, x, nullptr, y), KILN_OK);
  EXPECT_EQ(y[0], 10);
  EXPECT_EQ(y[1], 16);
}

TEST(TopK, DoubleAlongMiddleAxis) {
  const double x[] = {1, 9, 4, 3, 2, 8};  // [1, 3, 2], axis 1, k 2
  double v[4];
  int64_t i[4];
  kiln_topk_params_t p = {1, 3, 2, 2, 1};
  ASSERT_EQ(kiln_topk_f64(&p, x, nullptr, v, i), KILN_OK);
  EXPECT_EQ(std::vector<double>(v, v + 4), (std::vector<double>{4, 9, 2, 8}));
  EXPECT_EQ(std::vector<int64_t>(i, i + 4), (std::vector<int64_t>{1, 0, 2, 2}));
}

}  // namespace
