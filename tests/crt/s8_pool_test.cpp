// kiln_avgpool2d_s8 / kiln_maxpool2d_s8 against TFLite's reference integer pooling
// written out naively here (every output element recomputes its window), bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "kiln_kernels.h"
#include "../support/tflite_int8_reference.h"
#include "s8_test_util.h"

namespace {

using kiln::s8test::random_int8;

std::vector<int8_t> reference_pool(const kiln_pool2d_s8_params_t& p, const std::vector<int8_t>& x, bool average) {
  return kiln::tflite_ref::pool(p, x, average);
}

int32_t out_size(int32_t in, int32_t k, int32_t s, int32_t p0, int32_t p1) { return (in + p0 + p1 - k) / s + 1; }

kiln_pool2d_s8_params_t geometry(int n, int h, int w, int c, int kh, int kw, int sh, int sw, int pt, int pl, int pb,
                                 int pr, int act_min = -128, int act_max = 127) {
  kiln_pool2d_s8_params_t p{};
  p.batch = n, p.in_h = h, p.in_w = w, p.channels = c;
  p.kernel_h = kh, p.kernel_w = kw, p.stride_h = sh, p.stride_w = sw, p.pad_top = pt, p.pad_left = pl;
  p.out_h = out_size(h, kh, sh, pt, pb);
  p.out_w = out_size(w, kw, sw, pl, pr);
  p.act_min = act_min, p.act_max = act_max;
  return p;
}

void expect_matches(const kiln_pool2d_s8_params_t& p, std::mt19937& rng) {
  const std::vector<int8_t> x = random_int8(rng, size_t(p.batch) * p.in_h * p.in_w * p.channels);
  for (bool average : {true, false}) {
    std::vector<int8_t> y(size_t(p.batch) * p.out_h * p.out_w * p.channels, 99);
    const kiln_status_t st = average ? kiln_avgpool2d_s8(&p, x.data(), y.data()) : kiln_maxpool2d_s8(&p, x.data(), y.data());
    ASSERT_EQ(st, KILN_OK);
    EXPECT_EQ(y, reference_pool(p, x, average))
        << (average ? "avg" : "max") << " in " << p.in_h << "x" << p.in_w << "x" << p.channels << " k " << p.kernel_h
        << "x" << p.kernel_w << " s " << p.stride_h << "," << p.stride_w << " pad " << p.pad_top << "," << p.pad_left;
  }
}

TEST(S8Pool, GlobalAverageOfKwsShape) {  // KWS: 25x5x64 -> 1x1 (125 taps)
  std::mt19937 rng(1);
  expect_matches(geometry(1, 25, 5, 64, 25, 5, 25, 5, 0, 0, 0, 0), rng);
}

TEST(S8Pool, SamePaddingStridesAndOddChannels) {
  std::mt19937 rng(2);
  for (int c : {1, 3, 4, 7, 8, 12, 13, 17})
    for (int s : {1, 2}) {
      // TFLite SAME: out = ceil(in / s), total pad = max((out - 1) * s + k - in, 0), top = total / 2.
      const int in = 7, k = 3, out = (in + s - 1) / s, total = std::max((out - 1) * s + k - in, 0);
      expect_matches(geometry(2, in, in + 1, c, k, k, s, s, total / 2, total / 2, total - total / 2, total - total / 2 + 1), rng);
    }
}

TEST(S8Pool, ActivationClampAndAsymmetricWindows) {
  std::mt19937 rng(3);
  expect_matches(geometry(1, 9, 6, 16, 2, 3, 2, 1, 1, 2, 0, 1, -20, 37), rng);
  expect_matches(geometry(1, 5, 5, 9, 5, 1, 1, 1, 4, 0, 4, 0, 0, 127), rng);  // Relu-like clamp, windows mostly padding
}

TEST(S8Pool, LargeWindowsBeyondInt16Sums) {  // 20x20 = 400 taps: the sums leave int16
  std::mt19937 rng(4);
  expect_matches(geometry(1, 20, 20, 12, 20, 20, 1, 1, 0, 0, 0, 0), rng);
  kiln_pool2d_s8_params_t p = geometry(1, 20, 20, 8, 20, 20, 1, 1, 0, 0, 0, 0);
  std::vector<int8_t> lo(20 * 20 * 8, -128), hi(20 * 20 * 8, 127), y(8);
  ASSERT_EQ(kiln_avgpool2d_s8(&p, lo.data(), y.data()), KILN_OK);
  EXPECT_EQ(y, std::vector<int8_t>(8, -128));
  ASSERT_EQ(kiln_avgpool2d_s8(&p, hi.data(), y.data()), KILN_OK);
  EXPECT_EQ(y, std::vector<int8_t>(8, 127));
}

TEST(S8Pool, RoundsHalfAwayFromZero) {
  // Two taps: (1 + 2) / 2 = 1.5 -> 2 and (-1 + -2) / 2 = -1.5 -> -2.
  kiln_pool2d_s8_params_t p = geometry(1, 1, 2, 2, 1, 2, 1, 1, 0, 0, 0, 0);
  const std::vector<int8_t> x = {1, -1, 2, -2};
  std::vector<int8_t> y(2);
  ASSERT_EQ(kiln_avgpool2d_s8(&p, x.data(), y.data()), KILN_OK);
  EXPECT_EQ(y, (std::vector<int8_t>{2, -2}));
}

TEST(S8Pool, RandomGeometries) {
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> dim(1, 9), ch(1, 20), st(1, 3);
  for (int t = 0; t < 200; ++t) {
    const int h = dim(rng), w = dim(rng), kh = std::uniform_int_distribution<int>(1, h)(rng),
              kw = std::uniform_int_distribution<int>(1, w)(rng);
    const int pt = std::uniform_int_distribution<int>(0, kh - 1)(rng), pl = std::uniform_int_distribution<int>(0, kw - 1)(rng);
    const int pb = std::uniform_int_distribution<int>(0, kh - 1)(rng), pr = std::uniform_int_distribution<int>(0, kw - 1)(rng);
    const int lo = std::uniform_int_distribution<int>(-128, 0)(rng), hi = std::uniform_int_distribution<int>(0, 127)(rng);
    kiln_pool2d_s8_params_t p = geometry(std::uniform_int_distribution<int>(1, 2)(rng), h, w, ch(rng), kh, kw, st(rng),
                                         st(rng), pt, pl, pb, pr, lo, hi);
    // Keep windows that overlap the input (the compiler refuses the others for averages).
    if ((p.out_h - 1) * p.stride_h - p.pad_top >= h || (p.out_w - 1) * p.stride_w - p.pad_left >= w) continue;
    expect_matches(p, rng);
  }
}

TEST(S8Pool, RejectsBadArguments) {
  kiln_pool2d_s8_params_t p = geometry(1, 4, 4, 4, 2, 2, 2, 2, 0, 0, 0, 0);
  std::vector<int8_t> x(64), y(16);
  EXPECT_EQ(kiln_avgpool2d_s8(nullptr, x.data(), y.data()), KILN_ERR_NULL_POINTER);
  EXPECT_EQ(kiln_maxpool2d_s8(&p, nullptr, y.data()), KILN_ERR_NULL_POINTER);
  kiln_pool2d_s8_params_t bad = p;
  bad.stride_h = 0;
  EXPECT_EQ(kiln_avgpool2d_s8(&bad, x.data(), y.data()), KILN_ERR_BAD_ARGUMENT);
  EXPECT_EQ(kiln_maxpool2d_s8(&bad, x.data(), y.data()), KILN_ERR_BAD_ARGUMENT);
  bad = p;
  bad.act_min = 5, bad.act_max = 4;
  EXPECT_EQ(kiln_avgpool2d_s8(&bad, x.data(), y.data()), KILN_ERR_BAD_ARGUMENT);
  bad = p;
  bad.pad_top = 2;  // the first row of windows lies in the padding
  EXPECT_EQ(kiln_avgpool2d_s8(&bad, x.data(), y.data()), KILN_ERR_BAD_ARGUMENT);
  EXPECT_EQ(kiln_maxpool2d_s8(&bad, x.data(), y.data()), KILN_OK);  // max of nothing: act_min
  EXPECT_EQ(y[0], -128);
}

}  // namespace
