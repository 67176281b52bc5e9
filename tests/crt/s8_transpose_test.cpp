// kiln_transpose_s8 (the byte transpose, crt/src/kernels/s8/transpose_s8.c)
// against a naive loop: three rows (NCHW -> NHWC of three channels), three columns
// (the reverse), 4x4 blocks with every edge, batches; and kiln_transpose's
// dispatch of a one-byte NCHW <-> NHWC walk to it, next to walks it must not take.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <random>
#include <vector>

extern "C" {
#include "kiln_kernels.h"
}

namespace {

std::vector<int8_t> naive(const std::vector<int8_t>& x, int batch, int rows, int cols) {
  std::vector<int8_t> y(x.size());
  for (int b = 0; b < batch; ++b)
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) y[size_t((b * cols + j) * rows + i)] = x[size_t((b * rows + i) * cols + j)];
  return y;
}

std::vector<int8_t> random_bytes(std::mt19937& rng, size_t n) {
  std::uniform_int_distribution<int> d(-128, 127);
  std::vector<int8_t> v(n);
  for (auto& e : v) e = int8_t(d(rng));
  return v;
}

TEST(S8Transpose, EveryFormAgainstTheNaiveLoop) {
  std::mt19937 rng(7);
  const int shapes[][3] = {{1, 3, 1},  {1, 3, 4},  {1, 3, 7},   {1, 3, 9216}, {2, 3, 13}, {1, 1, 3},  {1, 4, 3},
                           {1, 9, 3},  {2, 11, 3}, {1, 4, 4},   {1, 8, 12},   {1, 5, 7},  {2, 16, 9}, {1, 7, 1},
                           {1, 1, 9},  {1, 2, 2},  {3, 13, 17}, {1, 32, 96},  {1, 0, 5},  {1, 6, 0}};
  for (const auto& s : shapes) {
    const auto x = random_bytes(rng, size_t(s[0] * s[1] * s[2]));
    const std::vector<int8_t> xs = x.empty() ? std::vector<int8_t>{1} : x;  // a valid pointer when empty
    std::vector<int8_t> y(x.size() + 8, int8_t(0x5a));  // bytes past the end must stay
    const kiln_transpose_s8_params_t p = {s[0], s[1], s[2]};
    ASSERT_EQ(kiln_transpose_s8(&p, xs.data(), y.data()), KILN_OK);
    EXPECT_EQ(std::vector<int8_t>(y.begin(), y.begin() + long(x.size())), naive(x, s[0], s[1], s[2]))
        << s[0] << "x" << s[1] << "x" << s[2];
    for (size_t i = x.size(); i < y.size(); ++i) ASSERT_EQ(y[i], int8_t(0x5a)) << "wrote past the end";
  }
}

TEST(S8Transpose, RejectsBadArguments) {
  int8_t x[4] = {}, y[4] = {};
  kiln_transpose_s8_params_t p = {1, 2, 2};
  EXPECT_EQ(kiln_transpose_s8(&p, nullptr, y), KILN_ERR_NULL_POINTER);
  p.rows = -1;
  EXPECT_EQ(kiln_transpose_s8(&p, x, y), KILN_ERR_BAD_ARGUMENT);
}

// The walk the lowering writes for Transpose perm [0, 2, 3, 1] of [B, C, H, W]
// (size-1 dimensions dropped, H and W merged): output [B,] H*W, C.
kiln_transpose_params_t nchw_to_nhwc(int b, int c, int hw, uint32_t elem_size) {
  kiln_transpose_params_t p = {};
  p.elem_size = elem_size;
  if (b == 1) {
    p.ndim = 2, p.shape[0] = hw, p.shape[1] = c, p.in_stride[0] = 1, p.in_stride[1] = hw;
  } else {
    p.ndim = 3, p.shape[0] = b, p.shape[1] = hw, p.shape[2] = c;
    p.in_stride[0] = c * hw, p.in_stride[1] = 1, p.in_stride[2] = hw;
  }
  return p;
}

TEST(S8Transpose, KilnTransposeTakesItForOneByteNchwNhwcWalks) {
  std::mt19937 rng(8);
  for (const auto& s : std::vector<std::array<int, 3>>{{1, 3, 96 * 96}, {2, 3, 25}, {1, 16, 36}, {3, 5, 7}}) {
    const auto x = random_bytes(rng, size_t(s[0] * s[1] * s[2]));
    std::vector<int8_t> y(x.size());
    const kiln_transpose_params_t p = nchw_to_nhwc(s[0], s[1], s[2], 1);
    ASSERT_EQ(kiln_transpose(&p, x.data(), y.data()), KILN_OK);
    EXPECT_EQ(y, naive(x, s[0], s[1], s[2]));
    // And back: NHWC [B, HW, C] -> NCHW is the transpose of [HW, C].
    std::vector<int8_t> back(x.size());
    const kiln_transpose_params_t q = nchw_to_nhwc(s[0], s[2], s[1], 1);
    ASSERT_EQ(kiln_transpose(&q, y.data(), back.data()), KILN_OK);
    EXPECT_EQ(back, x);
  }
  // Two-byte elements and a batch stride that is not rows * cols take the odometer.
  const std::vector<int16_t> x16 = {1, 2, 3, 4, 5, 6};  // [2, 3]
  std::vector<int16_t> y16(6);
  kiln_transpose_params_t p = nchw_to_nhwc(1, 2, 3, 2);
  ASSERT_EQ(kiln_transpose(&p, x16.data(), y16.data()), KILN_OK);
  EXPECT_EQ(y16, (std::vector<int16_t>{1, 4, 2, 5, 3, 6}));
  const std::vector<int8_t> x8 = {1, 2, 3, 4, 5, 6, 7, 8};  // two [2, 2] read with a batch stride of 2
  std::vector<int8_t> y8(8);
  p = nchw_to_nhwc(2, 2, 2, 1);
  p.in_stride[0] = 2;  // the batches overlap: not a plain transpose
  ASSERT_EQ(kiln_transpose(&p, x8.data(), y8.data()), KILN_OK);
  EXPECT_EQ(y8, (std::vector<int8_t>{1, 3, 2, 4, 3, 5, 4, 6}));
}

}  // namespace
