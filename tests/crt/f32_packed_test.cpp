// The float32 kernels on weights the compiler re-lays out (generator/lower/ops/
// f32_packing.h): Conv with GEMM blocks (1x1 and im2col), depthwise 3x3 with packed
// taps + bias, Gemm / MatMul with packed B, each against the same kernel on ONNX's
// layout over shapes that hit every tile edge (channels and columns not multiples
// of four, odd reduction lengths, narrow and one-pixel planes, stride 2, pads 0/1).
// This is the host build (the portable C tiles); tests/crt/f32_qemu runs the
// assembly tiles on the QEMU boards.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "ir/constant.h"
#include "kiln_kernels.h"
#include "lower/ops/f32_packing.h"

namespace {

std::vector<float> wave(size_t n, float scale, uint32_t seed) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = scale * std::sin(0.37f * float(i) + 0.91f * float(seed));
  return v;
}

std::vector<float> floats(const kiln::ConstantPtr& c) {
  std::vector<float> v(size_t(c->num_elements()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = float(c->as_double(int64_t(i)));
  return v;
}

kiln::ConstantPtr constant(const std::vector<float>& v) { return kiln::Constant::from_floats({int64_t(v.size())}, v); }

void expect_close(const std::vector<float>& got, const std::vector<float>& want, const char* what) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], 1e-5f * (1.0f + std::fabs(want[i]))) << what << " at " << i;
}

kiln_conv2d_params_t conv2d(uint32_t c_in, uint32_t c_out, uint32_t h, uint32_t w, uint32_t k, uint32_t stride,
                            int32_t pad, uint32_t groups) {
  kiln_conv2d_params_t p{};
  p.n = 1, p.c_in = c_in, p.c_out = c_out, p.groups = groups;
  p.d_in = p.d_out = 1, p.h_in = h, p.w_in = w;
  p.k_d = 1, p.k_h = p.k_w = k;
  p.stride_d = 1, p.stride_h = p.stride_w = stride;
  p.dilation_d = p.dilation_h = p.dilation_w = 1;
  p.pad_top = p.pad_left = pad;
  p.h_out = (h + 2 * uint32_t(pad) - k) / stride + 1;
  p.w_out = (w + 2 * uint32_t(pad) - k) / stride + 1;
  return p;
}

TEST(F32Packed, ConvGemmBlocksMatchTheOnnxLayout) {
  int cases = 0;
  for (uint32_t c_out : {1u, 3u, 4u, 6u, 9u})
    for (uint32_t c_in : {1u, 2u, 5u})
      for (uint32_t hw : {1u, 3u, 5u, 6u})
        for (uint32_t k : {1u, 3u})
          for (uint32_t groups : {1u, c_in == 2u && c_out % 2u == 0u ? 2u : 1u}) {
            if (k > hw + 2) continue;
            kiln_conv2d_params_t p = conv2d(c_in, c_out, hw, hw + 1, k, 1, k == 3u ? 1 : 0, groups);
            const uint32_t cin_g = c_in / groups, kk = cin_g * k * k;
            const auto x = wave(c_in * p.h_in * p.w_in, 1.0f, c_in + hw), w = wave(c_out * kk, 0.5f, c_out + k);
            const auto b = wave(c_out, 0.25f, 3);
            const size_t n_out = size_t(c_out) * p.h_out * p.w_out;
            std::vector<float> want(n_out), got(n_out, -7.0f);
            std::vector<float> scratch(size_t(kk) * p.h_out * p.w_out);
            if (k == 3u) p.tile_rows = 2;  // im2col in tiles of two output rows
            ASSERT_EQ(kiln_conv2d_f32(&p, x.data(), w.data(), b.data(), want.data(), scratch.data()), KILN_OK);
            const auto packed = floats(kiln::pack_f32_gemm_blocks(*constant(w), groups, c_out / groups, kk));
            EXPECT_EQ(packed.size(), size_t(groups) * ((c_out / groups + 3) / 4) * 4 * kk);
            p.weights_layout = KILN_CONV_WEIGHTS_GEMM_BLOCKS;
            ASSERT_EQ(kiln_conv2d_f32(&p, x.data(), packed.data(), b.data(), got.data(), scratch.data()), KILN_OK);
            expect_close(got, want, "conv");
            ++cases;
          }
  EXPECT_GT(cases, 100);
}

TEST(F32Packed, ConvGemmBlocksWithoutScratchIsRefusedUnlessPointwise) {
  kiln_conv2d_params_t p = conv2d(2, 4, 5, 5, 3, 1, 1, 1);
  p.weights_layout = KILN_CONV_WEIGHTS_GEMM_BLOCKS;
  std::vector<float> x(50), w(72), y(100);
  EXPECT_EQ(kiln_conv2d_f32(&p, x.data(), w.data(), nullptr, y.data(), nullptr), KILN_ERR_BAD_ARGUMENT);
  p.weights_layout = 7;
  EXPECT_EQ(kiln_conv2d_f32(&p, x.data(), w.data(), nullptr, y.data(), nullptr), KILN_ERR_BAD_ARGUMENT);
}

TEST(F32Packed, Depthwise3x3MatchesTheDirectLoop) {
  int cases = 0;
  for (uint32_t stride : {1u, 2u})
    for (int32_t pad : {0, 1})
      for (uint32_t h : {1u, 2u, 3u, 7u})
        for (uint32_t w : {1u, 2u, 3u, 4u, 5u, 8u, 9u, 12u, 13u, 20u}) {
          if (h + 2u * uint32_t(pad) < 3u || w + 2u * uint32_t(pad) < 3u) continue;
          const uint32_t c = 3;
          kiln_conv2d_params_t p = conv2d(c, c, h, w, 3, stride, pad, c);
          const auto x = wave(c * h * w, 1.0f, h * 31 + w), wt = wave(c * 9, 0.5f, stride), b = wave(c, 0.3f, 1);
          const size_t n_out = size_t(c) * p.h_out * p.w_out;
          std::vector<float> want(n_out), got(n_out, -7.0f);
          ASSERT_EQ(kiln_conv2d_f32(&p, x.data(), wt.data(), b.data(), want.data(), nullptr), KILN_OK);
          auto bias = constant(b);
          const auto packed = floats(kiln::pack_f32_depthwise3x3(*constant(wt), bias.get(), c));
          std::vector<float> scratch(3 * ((p.w_out - 1) * stride + 3), 99.0f);  // garbage: the kernel clears it
          p.weights_layout = KILN_CONV_WEIGHTS_DEPTHWISE_3X3;
          ASSERT_EQ(kiln_conv2d_f32(&p, x.data(), packed.data(), nullptr, got.data(), scratch.data()), KILN_OK);
          expect_close(got, want, "depthwise");
          ++cases;
        }
  EXPECT_GT(cases, 100);
}

TEST(F32Packed, Depthwise3x3RefusesOtherGeometries) {
  kiln_conv2d_params_t p = conv2d(2, 2, 5, 5, 3, 3, 1, 2);  // stride 3
  p.weights_layout = KILN_CONV_WEIGHTS_DEPTHWISE_3X3;
  std::vector<float> x(50), w(20), y(50), s(64);
  EXPECT_EQ(kiln_conv2d_f32(&p, x.data(), w.data(), nullptr, y.data(), s.data()), KILN_ERR_BAD_ARGUMENT);
  p = conv2d(2, 2, 5, 5, 3, 1, 1, 2);
  p.weights_layout = KILN_CONV_WEIGHTS_DEPTHWISE_3X3;
  EXPECT_EQ(kiln_conv2d_f32(&p, x.data(), w.data(), nullptr, y.data(), nullptr), KILN_ERR_NULL_POINTER);
}

TEST(F32Packed, GemmWithPackedBMatchesTheOnnxLayout) {
  int cases = 0;
  for (uint32_t m : {1u, 3u})
    for (uint32_t n : {1u, 5u, 8u, 11u})
      for (uint32_t k : {1u, 3u, 4u, 7u, 16u, 19u})
        for (uint8_t tb : {0, 1}) {
          kiln_gemm_params_t p{};
          p.m = m, p.n = n, p.k = k, p.trans_b = tb, p.alpha = 1.0f, p.beta = 1.0f;
          p.c_stride_m = 0, p.c_stride_n = 1;
          const auto a = wave(m * k, 1.0f, n), b = wave(k * n, 0.5f, k + tb), c = wave(n, 0.2f, 5);
          std::vector<float> want(m * n), got(m * n, -7.0f);
          ASSERT_EQ(kiln_gemm_f32(&p, a.data(), b.data(), c.data(), want.data()), KILN_OK);
          const auto packed = floats(tb ? kiln::pack_f32_gemm_blocks(*constant(b), 1, n, k)
                                        : kiln::pack_f32_gemm_blocks_transposed(*constant(b), k, n));
          p.b_packed = 1;
          ASSERT_EQ(kiln_gemm_f32(&p, a.data(), packed.data(), c.data(), got.data()), KILN_OK);
          expect_close(got, want, "gemm");
          std::fill(got.begin(), got.end(), -7.0f);
          ASSERT_EQ(kiln_gemm_f32(&p, a.data(), packed.data(), nullptr, got.data()), KILN_OK);
          for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i] - c[i % n], 1e-5f * (1 + std::fabs(want[i])));
          ++cases;
        }
  EXPECT_EQ(cases, 96);
  kiln_gemm_params_t p{};
  p.m = p.n = p.k = 1, p.alpha = 2.0f, p.b_packed = 1;  // alpha must be folded away by the compiler
  float v[4] = {1, 1, 1, 1};
  EXPECT_EQ(kiln_gemm_f32(&p, v, v, nullptr, v), KILN_ERR_BAD_ARGUMENT);
}

TEST(F32Packed, MaxPool2x2FastPathMatchesTheGeneralLoop) {
  // With an Indices output the kernel takes its general loop; without, the 2x2/2
  // fast path. NaN taps (in every position of a window) must win in both.
  for (uint32_t h : {2u, 3u, 6u})
    for (uint32_t w : {2u, 5u, 8u}) {
      kiln_pool2d_params_t p{};
      p.n = 1, p.c = 2, p.d_in = p.d_out = 1, p.h_in = h, p.w_in = w, p.h_out = h / 2, p.w_out = w / 2;
      p.k_d = 1, p.k_h = p.k_w = 2, p.stride_d = 1, p.stride_h = p.stride_w = 2;
      p.dilation_d = p.dilation_h = p.dilation_w = 1;
      auto x = wave(2 * h * w, 1.0f, h + w);
      for (size_t i = 0; i < x.size(); i += 7) x[i] = NAN;
      const size_t n_out = 2 * p.h_out * p.w_out;
      std::vector<float> fast(n_out), general(n_out);
      std::vector<int64_t> idx(n_out);
      ASSERT_EQ(kiln_maxpool2d_f32(&p, x.data(), general.data(), idx.data()), KILN_OK);
      ASSERT_EQ(kiln_maxpool2d_f32(&p, x.data(), fast.data(), nullptr), KILN_OK);
      int nans = 0;
      for (size_t i = 0; i < n_out; ++i) {
        if (std::isnan(general[i])) {
          EXPECT_TRUE(std::isnan(fast[i])) << i;
          ++nans;
        } else {
          EXPECT_EQ(fast[i], general[i]) << i;
        }
      }
      if (n_out >= 4) EXPECT_GT(nans, 0);
    }
}

}  // namespace
