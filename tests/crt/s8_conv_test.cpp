// kiln_conv2d_s8 (and its NCHW-input entry point) and kiln_depthwise_conv2d_s8
// against naive NHWC convolutions
// written here with TFLite's fixed-point requantization, bit for bit, on random
// shapes: padding, strides, dilations, groups, odd channel counts, depth
// multipliers, per-tensor and per-channel scales, nonzero zero points, clamps.
// Weights and requantization tables come from the lowering's own builders, so the
// layout contract between lowering and kernel is tested too.
#include <gtest/gtest.h>

#include "s8_test_support.h"

extern "C" {
#include "../../crt/src/kernels/s8/requant_s8.h"
}

namespace {

using s8test::Quant;

struct ConvCase {
  int n, h, w, cin, cout, kh, kw, sh, sw, dh, dw, pt, pl, pb, pr, groups;
  int oh() const { return (h + pt + pb - (dh * (kh - 1) + 1)) / sh + 1; }
  int ow() const { return (w + pl + pr - (dw * (kw - 1) + 1)) / sw + 1; }
};

std::vector<int8_t> reference_conv(const ConvCase& c, const std::vector<int8_t>& x, const std::vector<int8_t>& w,
                                   const std::vector<int32_t>& bias, const Quant& q) {
  const int oh = c.oh(), ow = c.ow(), cin_g = c.cin / c.groups, cout_g = c.cout / c.groups;
  std::vector<int8_t> y(size_t(c.n) * oh * ow * c.cout);
  for (int b = 0; b < c.n; ++b)
    for (int oy = 0; oy < oh; ++oy)
      for (int ox = 0; ox < ow; ++ox)
        for (int oc = 0; oc < c.cout; ++oc) {
          const int g = oc / cout_g;
          int32_t acc = bias.empty() ? 0 : bias[size_t(oc)];
          for (int ky = 0; ky < c.kh; ++ky)
            for (int kx = 0; kx < c.kw; ++kx)
              for (int ic = 0; ic < cin_g; ++ic) {
                const int iy = oy * c.sh - c.pt + ky * c.dh, ix = ox * c.sw - c.pl + kx * c.dw;
                if (iy < 0 || iy >= c.h || ix < 0 || ix >= c.w) continue;  // padded tap: 0
                const int32_t xv = x[size_t(((b * c.h + iy) * c.w + ix) * c.cin + g * cin_g + ic)];
                const int32_t wv = w[size_t(((oc * c.kh + ky) * c.kw + kx) * cin_g + ic)];
                acc += (xv - q.x_zp) * wv;
              }
          y[size_t(((b * oh + oy) * ow + ox) * c.cout + oc)] =
              s8test::reference_output(acc, q.scales[size_t(oc)], q.y_zp, q.act_min, q.act_max);
        }
  return y;
}

// Runs kiln_conv2d_s8 with parameters built as the lowering builds them.
std::vector<int8_t> run_conv(const ConvCase& c, const std::vector<int8_t>& x, const std::vector<int8_t>& w,
                             const std::vector<int32_t>& bias, const Quant& q) {
  const int cin_g = c.cin / c.groups, taps = c.kh * c.kw * cin_g;
  std::vector<int64_t> w64(w.begin(), w.end());
  const std::vector<int16_t> wk = s8test::to_int16(kiln::s8_weight_blocks(w64, c.groups, c.cout / c.groups, taps));
  const std::vector<kiln_s8_requant_t> rq = s8test::requant_table(q.scales, q.y_zp);
  kiln_conv2d_s8_params_t p{};
  p.batch = c.n, p.in_h = c.h, p.in_w = c.w, p.in_c = c.cin;
  p.out_h = c.oh(), p.out_w = c.ow(), p.out_c = c.cout;
  p.kernel_h = c.kh, p.kernel_w = c.kw, p.stride_h = c.sh, p.stride_w = c.sw;
  p.dilation_h = c.dh, p.dilation_w = c.dw, p.pad_top = c.pt, p.pad_left = c.pl, p.groups = c.groups;
  p.input_offset = -q.x_zp, p.output_offset = q.y_zp, p.act_min = q.act_min, p.act_max = q.act_max;
  std::vector<int16_t> scratch(size_t(2 * kiln::s8_row_len(taps)), int16_t(0x5a5a));  // poisoned
  std::vector<int8_t> y(size_t(c.n) * c.oh() * c.ow() * c.cout, int8_t(0x33));
  EXPECT_EQ(kiln_conv2d_s8(&p, x.data(), wk.data(), bias.empty() ? nullptr : bias.data(), rq.data(), y.data(),
                           scratch.data()),
            KILN_OK);
  // The int8-weight form (the lowering's for MVE targets) must give the same bytes.
  const kiln::ConstantPtr w8 = kiln::s8_weight_blocks_w8(w64, c.groups, c.cout / c.groups, taps);
  const std::vector<int64_t> bias64(bias.begin(), bias.end());
  const auto kernel_bias = kiln::s8_fold_input_offset(bias64, w64, c.cout, taps, -q.x_zp);
  EXPECT_TRUE(kernel_bias.has_value());
  if (!kernel_bias) return y;
  std::vector<int8_t> scratch8(size_t(2 * kiln::s8_row_len8(taps)), int8_t(0x5a));  // poisoned
  std::vector<int8_t> y8(y.size(), int8_t(0x44));
  EXPECT_EQ(kiln_conv2d_s8_w8(&p, x.data(), reinterpret_cast<const int8_t*>(w8->data()), kernel_bias->data(),
                              rq.data(), y8.data(), scratch8.data()),
            KILN_OK);
  EXPECT_EQ(y8, y) << "int8-weight form differs";
  // The compact form (a sized parameter pool): 8-byte requantization records.
  const kiln::ConstantPtr qm = kiln::s8_requant_records(q.scales);
  std::vector<int8_t> yq(y.size(), int8_t(0x55));
  EXPECT_EQ(kiln_conv2d_s8_w8q(&p, x.data(), reinterpret_cast<const int8_t*>(w8->data()), kernel_bias->data(),
                               reinterpret_cast<const int32_t*>(qm->data()), yq.data(), scratch8.data()),
            KILN_OK);
  EXPECT_EQ(yq, y) << "compact int8-weight form differs";
  if (c.groups == 1) {
    // The same input in NCHW (a first conv reading the caller's layout) gives the same bytes.
    std::vector<int8_t> xn(x.size());
    for (int b = 0; b < c.n; ++b)
      for (int i = 0; i < c.h * c.w; ++i)
        for (int ch = 0; ch < c.cin; ++ch)
          xn[size_t((b * c.cin + ch) * c.h * c.w + i)] = x[size_t((b * c.h * c.w + i) * c.cin + ch)];
    std::vector<int8_t> yn(y.size(), int8_t(0x55));
    EXPECT_EQ(kiln_conv2d_s8_nchw(&p, xn.data(), wk.data(), bias.empty() ? nullptr : bias.data(), rq.data(),
                                  yn.data(), scratch.data()),
              KILN_OK);
    EXPECT_EQ(yn, y) << "NCHW input differs";
  }
  return y;
}

void check_conv(const ConvCase& c, std::mt19937& rng, bool with_bias = true) {
  const int cin_g = c.cin / c.groups;
  const auto x = s8test::random_int8(rng, size_t(c.n) * c.h * c.w * c.cin);
  const auto w = s8test::random_int8(rng, size_t(c.cout) * c.kh * c.kw * cin_g, -127, 127);
  const auto bias = with_bias ? s8test::random_bias(rng, size_t(c.cout)) : std::vector<int32_t>{};
  // Typical real models: scale ~ 1 / (taps * 64 * 64 / 128) keeps outputs in range.
  const Quant q = s8test::random_quant(rng, c.cout, 1.0 / (double(c.kh * c.kw * cin_g) * 40.0 + 1.0));
  const auto expected = reference_conv(c, x, w, bias, q);
  const auto got = run_conv(c, x, w, bias, q);
  ASSERT_EQ(got.size(), expected.size());
  int distinct = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(int(got[i]), int(expected[i])) << "element " << i << " of conv " << c.h << "x" << c.w << "x" << c.cin
                                            << " -> " << c.cout << " k" << c.kh << "x" << c.kw << " s" << c.sh
                                            << " d" << c.dh << " g" << c.groups;
    distinct += i > 0 && got[i] != got[i - 1];
  }
  if (got.size() > 16) EXPECT_GT(distinct, 0) << "degenerate test: every output equal";
}

TEST(S8Conv, PointwiseLikeKws) {
  std::mt19937 rng(1);
  check_conv({1, 25, 5, 64, 64, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1}, rng);
}

TEST(S8Conv, FirstLayerOfKwsSingleChannelStride2Padded) {
  std::mt19937 rng(2);
  // 49x10x1 input, 10x4 kernel, stride 2, SAME padding (TFLite pads 4/5 and 1/2).
  check_conv({1, 49, 10, 1, 64, 10, 4, 2, 2, 1, 1, 4, 1, 5, 1, 1}, rng);
}

TEST(S8Conv, ThreeByThreeStride2WithPadding) {
  std::mt19937 rng(3);
  check_conv({1, 9, 7, 8, 12, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1}, rng);
}

TEST(S8Conv, OddOutputChannelsAndOddPixelCount) {
  std::mt19937 rng(4);
  check_conv({1, 5, 3, 6, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}, rng);  // 15 pixels, 7 channels
  check_conv({1, 3, 3, 3, 5, 2, 2, 1, 1, 1, 1, 0, 0, 0, 0, 1}, rng);  // odd input channels
}

TEST(S8Conv, DilationGroupsBatchAndNoBias) {
  std::mt19937 rng(5);
  check_conv({2, 8, 9, 4, 6, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 1}, rng);
  check_conv({1, 6, 6, 8, 12, 3, 3, 1, 2, 1, 1, 1, 1, 1, 1, 2}, rng, /*with_bias=*/false);
  check_conv({1, 5, 5, 6, 9, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 3}, rng);
}

TEST(S8Conv, RandomShapes) {
  std::mt19937 rng(6);
  std::uniform_int_distribution<int> d(1, 4), ch(1, 13), sz(1, 9), pad(0, 2);
  for (int t = 0; t < 60; ++t) {
    ConvCase c{};
    c.groups = d(rng) == 1 ? d(rng) : 1;
    c.n = d(rng) == 1 ? 2 : 1;
    c.cin = ch(rng) * c.groups;
    c.cout = ch(rng) * c.groups;
    c.kh = std::min(d(rng), 3), c.kw = std::min(d(rng), 3);
    c.sh = std::min(d(rng), 2), c.sw = std::min(d(rng), 2);
    c.dh = d(rng) == 1 ? 2 : 1, c.dw = d(rng) == 1 ? 2 : 1;
    c.pt = pad(rng), c.pl = pad(rng), c.pb = pad(rng), c.pr = pad(rng);
    c.h = sz(rng) + c.dh * (c.kh - 1), c.w = sz(rng) + c.dw * (c.kw - 1);
    check_conv(c, rng, d(rng) != 1);
    if (HasFatalFailure()) return;
  }
}

TEST(S8Conv, RejectsBadArguments) {
  kiln_conv2d_s8_params_t p{};
  p.batch = 1, p.in_h = p.in_w = 1, p.in_c = 3, p.out_h = p.out_w = 1, p.out_c = 2;
  p.kernel_h = p.kernel_w = p.stride_h = p.stride_w = p.dilation_h = p.dilation_w = 1, p.groups = 2;
  int8_t x[3] = {}, y[2] = {};
  int16_t w[8] = {}, scratch[8] = {};
  kiln_s8_requant_t rq[2] = {};
  EXPECT_EQ(kiln_conv2d_s8(&p, x, w, nullptr, rq, y, scratch), KILN_ERR_BAD_ARGUMENT);  // 3 channels, 2 groups
  p.groups = 1;
  EXPECT_EQ(kiln_conv2d_s8(&p, x, w, nullptr, rq, y, nullptr), KILN_ERR_NULL_POINTER);
  p.in_c = 2, p.groups = 2;  // the NCHW entry point takes one group only
  EXPECT_EQ(kiln_conv2d_s8(&p, x, w, nullptr, rq, y, scratch), KILN_OK);
  EXPECT_EQ(kiln_conv2d_s8_nchw(&p, x, w, nullptr, rq, y, scratch), KILN_ERR_BAD_ARGUMENT);
}

// --- depthwise ---

struct DwCase {
  int n, h, w, cin, mult, kh, kw, sh, sw, dh, dw, pt, pl, pb, pr;
  int oh() const { return (h + pt + pb - (dh * (kh - 1) + 1)) / sh + 1; }
  int ow() const { return (w + pl + pr - (dw * (kw - 1) + 1)) / sw + 1; }
};

void check_depthwise(const DwCase& c, std::mt19937& rng, bool with_bias = true) {
  const int cout = c.cin * c.mult, oh = c.oh(), ow = c.ow();
  const auto x = s8test::random_int8(rng, size_t(c.n) * c.h * c.w * c.cin);
  const auto w = s8test::random_int8(rng, size_t(c.kh) * c.kw * cout, -127, 127);
  const auto bias = with_bias ? s8test::random_bias(rng, size_t(cout)) : std::vector<int32_t>{};
  const Quant q = s8test::random_quant(rng, cout, 1.0 / (double(c.kh * c.kw) * 40.0 + 1.0));
  std::vector<int8_t> expected(size_t(c.n) * oh * ow * cout);
  for (int b = 0; b < c.n; ++b)
    for (int oy = 0; oy < oh; ++oy)
      for (int ox = 0; ox < ow; ++ox)
        for (int oc = 0; oc < cout; ++oc) {
          int32_t acc = bias.empty() ? 0 : bias[size_t(oc)];
          for (int ky = 0; ky < c.kh; ++ky)
            for (int kx = 0; kx < c.kw; ++kx) {
              const int iy = oy * c.sh - c.pt + ky * c.dh, ix = ox * c.sw - c.pl + kx * c.dw;
              if (iy < 0 || iy >= c.h || ix < 0 || ix >= c.w) continue;
              acc += (x[size_t(((b * c.h + iy) * c.w + ix) * c.cin + oc / c.mult)] - q.x_zp) *
                     w[size_t((ky * c.kw + kx) * cout + oc)];
            }
          expected[size_t(((b * oh + oy) * ow + ox) * cout + oc)] =
              s8test::reference_output(acc, q.scales[size_t(oc)], q.y_zp, q.act_min, q.act_max);
        }
  std::vector<int64_t> w64(w.begin(), w.end());
  const auto wk = s8test::to_int16(kiln::s8_depthwise_weights(w64, c.kh * c.kw, cout));
  const auto rq = s8test::requant_table(q.scales, q.y_zp);
  kiln_depthwise_conv2d_s8_params_t p{};
  p.batch = c.n, p.in_h = c.h, p.in_w = c.w, p.in_c = c.cin, p.out_h = oh, p.out_w = ow, p.out_c = cout;
  p.kernel_h = c.kh, p.kernel_w = c.kw, p.stride_h = c.sh, p.stride_w = c.sw, p.dilation_h = c.dh, p.dilation_w = c.dw;
  p.pad_top = c.pt, p.pad_left = c.pl, p.depth_multiplier = c.mult;
  p.input_offset = -q.x_zp, p.output_offset = q.y_zp, p.act_min = q.act_min, p.act_max = q.act_max;
  std::vector<int8_t> got(expected.size(), int8_t(0x33));
  ASSERT_EQ(kiln_depthwise_conv2d_s8(&p, x.data(), wk.data(), bias.empty() ? nullptr : bias.data(), rq.data(),
                                     got.data()),
            KILN_OK);
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_EQ(int(got[i]), int(expected[i])) << "element " << i << " of depthwise " << c.h << "x" << c.w << "x"
                                            << c.cin << " m" << c.mult << " k" << c.kh << "x" << c.kw << " s" << c.sh;
}

TEST(S8DepthwiseConv, ThreeByThreeLikeKws) {
  std::mt19937 rng(11);
  check_depthwise({1, 25, 5, 64, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1}, rng);
}

TEST(S8DepthwiseConv, Stride2OddChannelsMultiplierDilation) {
  std::mt19937 rng(12);
  check_depthwise({1, 9, 8, 10, 1, 3, 3, 2, 2, 1, 1, 0, 0, 1, 1}, rng);  // TFLite SAME at stride 2
  check_depthwise({1, 6, 7, 3, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1}, rng);  // depth multiplier 2
  check_depthwise({2, 9, 9, 5, 3, 3, 2, 1, 2, 2, 1, 2, 1, 2, 1}, rng, false);
}

TEST(S8DepthwiseConv, RandomShapes) {
  std::mt19937 rng(13);
  std::uniform_int_distribution<int> d(1, 4), ch(1, 17), sz(1, 8), pad(0, 2);
  for (int t = 0; t < 60; ++t) {
    DwCase c{};
    c.n = 1, c.cin = ch(rng), c.mult = d(rng) == 1 ? d(rng) : 1;
    c.kh = std::min(d(rng), 3), c.kw = std::min(d(rng), 3), c.sh = std::min(d(rng), 2), c.sw = std::min(d(rng), 2);
    c.dh = d(rng) == 1 ? 2 : 1, c.dw = d(rng) == 1 ? 2 : 1;
    c.pt = pad(rng), c.pl = pad(rng), c.pb = pad(rng), c.pr = pad(rng);
    c.h = sz(rng) + c.dh * (c.kh - 1), c.w = sz(rng) + c.dw * (c.kw - 1);
    check_depthwise(c, rng, d(rng) != 1);
    if (HasFatalFailure()) return;
  }
}

// --- requantization: the folded single rounding equals TFLite's double rounding ---

TEST(S8Requant, FoldedRoundingEqualsTfliteDoubleRounding) {
  std::mt19937 rng(21);
  std::uniform_real_distribution<double> expo(-34.0, 6.0), frac(0.5, 1.0);
  std::uniform_int_distribution<int32_t> small(-70000, 70000), any(INT32_MIN, INT32_MAX), zp(-128, 127);
  for (int t = 0; t < 4000; ++t) {
    const double scale = std::ldexp(frac(rng), int(expo(rng)));
    const int32_t y_zp = zp(rng);
    const auto rq = s8test::requant_table({scale}, y_zp);
    for (int i = 0; i < 50; ++i) {
      int32_t acc = i < 40 ? small(rng) : any(rng);
      if (i == 0) acc = INT32_MIN;
      if (i == 1) acc = INT32_MAX;
      if (i == 2) acc = -1;
      kiln_s8_output_t o{y_zp, -128, 127, 0, 0};
      ASSERT_EQ(int(kiln_s8_output(acc, &rq[0], &o)), int(s8test::reference_output(acc, scale, y_zp, -128, 127)))
          << "acc " << acc << " scale " << scale;
    }
  }
}

TEST(S8Requant, ShortFormEqualsTfliteWhereTheKernelsUseIt) {
  // The short form (SMMULR of 2 * acc, then RoundingDivideByPOT) applies when the
  // shift is a right shift and |acc| < 2^30.
  std::mt19937 rng(22);
  std::uniform_real_distribution<double> expo(-34.0, -1.0), frac(0.5, 1.0);
  std::uniform_int_distribution<int32_t> small(-70000, 70000), big(-(1 << 30) + 1, (1 << 30) - 1), zp(-128, 127);
  for (int t = 0; t < 4000; ++t) {
    const double scale = std::ldexp(frac(rng), int(expo(rng)));
    const int32_t y_zp = zp(rng);
    const auto rq = s8test::requant_table({scale}, y_zp);
    if (rq[0].exponent < 1 || rq[0].exponent > 22) continue;
    for (int i = 0; i < 50; ++i) {
      const int32_t acc = i < 40 ? small(rng) : big(rng);
      const int64_t expected = int64_t(y_zp) + kiln::quant::multiply_by_quantized_multiplier(
                                                   acc, kiln::quant::quantize_multiplier(scale).multiplier,
                                                   kiln::quant::quantize_multiplier(scale).shift);
      ASSERT_EQ(int64_t(kiln_s8_requant_short(acc, &rq[0])), expected) << "acc " << acc << " scale " << scale;
      kiln_s8_output_t o{y_zp, -128, 127, 1, 1};
      ASSERT_EQ(int(kiln_s8_output_as(acc, &rq[0], &o, 3)), int(s8test::reference_output(acc, scale, y_zp, -128, 127)));
    }
  }
}

TEST(S8Requant, ShortFormIsChosenOnlyWhenAccumulatorsFit) {
  const auto rq = s8test::requant_table({0.001, 0.002}, -5);
  const int32_t small_bias[2] = {1000, -1000}, big_bias[2] = {1000, -(1 << 29)};
  EXPECT_EQ(kiln_s8_short_form_ok(rq.data(), small_bias, 2, 576, -5), 1);
  EXPECT_EQ(kiln_s8_short_form_ok(rq.data(), small_bias, 2, 576, 7), 0);  // round_offset is for -5
  EXPECT_EQ(kiln_s8_short_form_ok(rq.data(), big_bias, 2, 576 * 64, -5), 0);
  EXPECT_EQ(kiln_s8_short_form_ok(rq.data(), nullptr, 2, 1 << 16, -5), 0);  // 2^16 * 255 * 128 >= 2^30
  EXPECT_EQ(kiln_s8_short_form_ok(rq.data(), nullptr, 2, 1 << 15, -5), 1);
  const auto left = s8test::requant_table({0.75}, 0);                         // S >= 0: no right shift
  EXPECT_EQ(kiln_s8_short_form_ok(left.data(), nullptr, 1, 9, 0), 0);
  const auto tiny = s8test::requant_table({std::ldexp(0.75, -24)}, 3);  // exponent 24 > 22
  EXPECT_EQ(tiny[0].round_offset, 0);
  EXPECT_EQ(kiln_s8_short_form_ok(tiny.data(), nullptr, 1, 9, 3), 0);
}

TEST(S8Requant, ExactHalfwayCasesRoundAwayFromZero) {
  // scale 2^-4: M = 2^30, S = -3. acc = +-8 -> +-0.5 -> +-1; acc = +-24 -> +-1.5 -> +-2.
  const auto rq = s8test::requant_table({1.0 / 16.0}, 0);
  const kiln_s8_output_t o{0, -128, 127, 0, 0};
  for (int32_t acc : {8, -8, 24, -24, 7, -7, 9, -9})
    EXPECT_EQ(int(kiln_s8_output(acc, &rq[0], &o)), int(s8test::reference_output(acc, 1.0 / 16.0, 0, -128, 127)))
        << acc;
  EXPECT_EQ(int(kiln_s8_output(8, &rq[0], &o)), 1);
  EXPECT_EQ(int(kiln_s8_output(-8, &rq[0], &o)), -1);
}

}  // namespace
