// Unit tests of the loss kernels (NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss)
// against reference loops written here in double precision from the ONNX definition.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

extern "C" {
#include "kiln_kernels.h"
}

namespace {

template <typename T>
std::vector<T> scores(size_t n) {
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = T(std::sin(double(i) * 0.9) * 2.5 - 0.1 * double(i % 3));
  return v;
}

kiln_loss_params_t params(uint32_t n, uint32_t c, uint32_t d, kiln_loss_reduction_t red, uint32_t target_size,
                          bool has_ii, int64_t ii) {
  kiln_loss_params_t p = {};
  p.n = n;
  p.c = c;
  p.d = d;
  p.reduction = red;
  p.target_size = target_size;
  p.has_ignore_index = has_ii ? 1u : 0u;
  p.ignore_index = ii;
  return p;
}

struct Ref {
  std::vector<double> none;  // per element
  double sum = 0, mean = 0;
};

// ONNX's definition, spelled out: loss[n][d] = -w[t] * x[n][t][d] (0 when ignored);
// mean divides by the summed weights of the counted targets.
template <typename T>
Ref nll_reference(const std::vector<T>& x, const std::vector<int64_t>& t, const std::vector<T>* w, uint32_t n,
                  uint32_t c, uint32_t d, bool has_ii, int64_t ii) {
  Ref r;
  double wsum = 0;
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t k = 0; k < d; ++k) {
      const int64_t cls = t[i * d + k];
      double l = 0;
      if (!(has_ii && cls == ii)) {
        const double wt = w ? double((*w)[size_t(cls)]) : 1.0;
        l = -wt * double(x[(i * c + size_t(cls)) * d + k]);
        wsum += wt;
      }
      r.none.push_back(l);
      r.sum += l;
    }
  r.mean = r.sum / wsum;
  return r;
}

template <typename T>
std::vector<T> log_softmax_reference(const std::vector<T>& x, uint32_t n, uint32_t c, uint32_t d) {
  std::vector<T> y(x.size());
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t k = 0; k < d; ++k) {
      double s = 0;
      for (uint32_t a = 0; a < c; ++a) s += std::exp(double(x[(i * c + a) * d + k]));
      for (uint32_t a = 0; a < c; ++a) y[(i * c + a) * d + k] = T(double(x[(i * c + a) * d + k]) - std::log(s));
    }
  return y;
}

// [N=3, C=4, D=5] (an NCd1 input), int64 targets with one ignored class, weights.
TEST(NllLoss, WeightedIgnoreIndexAllReductionsMatchReference) {
  const uint32_t n = 3, c = 4, d = 5;
  const std::vector<float> x = scores<float>(n * c * d);
  const std::vector<float> w = {0.5f, 2.0f, 1.25f, 3.0f};
  std::vector<int64_t> t(n * d);
  for (size_t i = 0; i < t.size(); ++i) t[i] = int64_t((i * 7 + 1) % c);
  const Ref r = nll_reference(x, t, &w, n, c, d, true, 1);
  std::vector<float> none(n * d, 99.0f);
  kiln_loss_params_t p = params(n, c, d, KILN_LOSS_NONE, 8, true, 1);
  ASSERT_EQ(kiln_nll_loss_f32(&p, x.data(), t.data(), w.data(), none.data()), KILN_OK);
  for (size_t i = 0; i < none.size(); ++i) {
    EXPECT_NEAR(none[i], r.none[i], 1e-6) << i;
    if (t[i] == 1) EXPECT_EQ(none[i], 0.0f) << i;
  }
  float out = 0;
  p.reduction = KILN_LOSS_SUM;
  ASSERT_EQ(kiln_nll_loss_f32(&p, x.data(), t.data(), w.data(), &out), KILN_OK);
  EXPECT_NEAR(out, r.sum, 1e-5);
  p.reduction = KILN_LOSS_MEAN;
  ASSERT_EQ(kiln_nll_loss_f32(&p, x.data(), t.data(), w.data(), &out), KILN_OK);
  EXPECT_NEAR(out, r.mean, 1e-6);
}

// Mean with weights and ignore_index, checked by hand: the denominator is the sum of
// the weights of the targets that are not ignored, not the element count.
TEST(NllLoss, WeightedMeanDividesByWeightsOfCountedTargetsOnly) {
  const std::vector<float> x = {-1.0f, -2.0f, -3.0f,   // n = 0
                                -4.0f, -5.0f, -6.0f,   // n = 1
                                -7.0f, -8.0f, -9.0f};  // n = 2
  const std::vector<float> w = {1.0f, 2.0f, 4.0f};
  const std::vector<int64_t> t = {2, 0, 1};  // n = 1 (class 0) ignored
  kiln_loss_params_t p = params(3, 3, 1, KILN_LOSS_MEAN, 8, true, 0);
  float out = 0;
  ASSERT_EQ(kiln_nll_loss_f32(&p, x.data(), t.data(), w.data(), &out), KILN_OK);
  EXPECT_FLOAT_EQ(out, (4.0f * 3.0f + 2.0f * 8.0f) / (4.0f + 2.0f));
  // Without weights the denominator is the number of counted targets.
  ASSERT_EQ(kiln_nll_loss_f32(&p, x.data(), t.data(), nullptr, &out), KILN_OK);
  EXPECT_FLOAT_EQ(out, (3.0f + 8.0f) / 2.0f);
  // Without ignore_index every target counts.
  p.has_ignore_index = 0;
  ASSERT_EQ(kiln_nll_loss_f32(&p, x.data(), t.data(), nullptr, &out), KILN_OK);
  EXPECT_FLOAT_EQ(out, (3.0f + 4.0f + 8.0f) / 3.0f);
}

TEST(NllLoss, Int32TargetsAndFloat64MatchReference) {
  const uint32_t n = 2, c = 5, d = 6;
  const std::vector<double> x = scores<double>(n * c * d);
  const std::vector<double> w = {1.0, 0.5, -0.25, 2.0, 1.5};
  std::vector<int32_t> t32(n * d);
  std::vector<int64_t> t64(n * d);
  for (size_t i = 0; i < t32.size(); ++i) t64[i] = t32[i] = int32_t((i * 3) % c);
  t64[4] = t32[4] = -5;  // negative ignore_index, out of [0, C)
  const Ref r = nll_reference(x, t64, &w, n, c, d, true, -5);
  std::vector<double> none(n * d);
  kiln_loss_params_t p = params(n, c, d, KILN_LOSS_NONE, 4, true, -5);
  ASSERT_EQ(kiln_nll_loss_f64(&p, x.data(), t32.data(), w.data(), none.data()), KILN_OK);
  for (size_t i = 0; i < none.size(); ++i) EXPECT_NEAR(none[i], r.none[i], 1e-12) << i;
  double out = 0;
  p.reduction = KILN_LOSS_MEAN;
  ASSERT_EQ(kiln_nll_loss_f64(&p, x.data(), t32.data(), w.data(), &out), KILN_OK);
  EXPECT_NEAR(out, r.mean, 1e-12);
}

// A target outside [0, C) that is not ignore_index is rejected before anything is
// written (and never read through).
TEST(NllLoss, OutOfRangeTargetIsBadArgumentAndWritesNothing) {
  const std::vector<float> x = scores<float>(2 * 3);
  for (int64_t bad : {int64_t(3), int64_t(-1), int64_t(1) << 40}) {
    const std::vector<int64_t> t = {0, bad};
    std::vector<float> out = {7.0f, 7.0f};
    kiln_loss_params_t p = params(2, 3, 1, KILN_LOSS_NONE, 8, true, 2);
    EXPECT_EQ(kiln_nll_loss_f32(&p, x.data(), t.data(), nullptr, out.data()), KILN_ERR_BAD_ARGUMENT) << bad;
    EXPECT_EQ(out[0], 7.0f);
    EXPECT_EQ(kiln_softmax_cross_entropy_f32(&p, x.data(), t.data(), nullptr, out.data(), nullptr),
              KILN_ERR_BAD_ARGUMENT);
    EXPECT_EQ(out[0], 7.0f);
    // The same value is fine when it is the ignore_index.
    p.ignore_index = bad;
    EXPECT_EQ(kiln_nll_loss_f32(&p, x.data(), t.data(), nullptr, out.data()), KILN_OK);
    EXPECT_EQ(out[1], 0.0f);
  }
}

TEST(NllLoss, EveryTargetIgnoredMeanIsNaN) {
  const std::vector<float> x = scores<float>(2 * 3);
  const std::vector<int64_t> t = {1, 1};
  kiln_loss_params_t p = params(2, 3, 1, KILN_LOSS_MEAN, 8, true, 1);
  float out = 0;
  ASSERT_EQ(kiln_nll_loss_f32(&p, x.data(), t.data(), nullptr, &out), KILN_OK);
  EXPECT_TRUE(std::isnan(out));
  p.reduction = KILN_LOSS_SUM;
  ASSERT_EQ(kiln_nll_loss_f32(&p, x.data(), t.data(), nullptr, &out), KILN_OK);
  EXPECT_EQ(out, 0.0f);
}

TEST(NllLoss, RejectsNullPointersAndBadParameters) {
  const std::vector<float> x = scores<float>(6);
  const std::vector<int64_t> t = {0, 1};
  float out[2];
  kiln_loss_params_t p = params(2, 3, 1, KILN_LOSS_NONE, 8, false, 0);
  EXPECT_EQ(kiln_nll_loss_f32(nullptr, x.data(), t.data(), nullptr, out), KILN_ERR_NULL_POINTER);
  EXPECT_EQ(kiln_nll_loss_f32(&p, nullptr, t.data(), nullptr, out), KILN_ERR_NULL_POINTER);
  EXPECT_EQ(kiln_nll_loss_f32(&p, x.data(), nullptr, nullptr, out), KILN_ERR_NULL_POINTER);
  EXPECT_EQ(kiln_softmax_cross_entropy_f32(&p, x.data(), t.data(), nullptr, nullptr, nullptr), KILN_ERR_NULL_POINTER);
  p.target_size = 2;
  EXPECT_EQ(kiln_nll_loss_f32(&p, x.data(), t.data(), nullptr, out), KILN_ERR_BAD_ARGUMENT);
  p.target_size = 8;
  p.reduction = 3;
  EXPECT_EQ(kiln_nll_loss_f32(&p, x.data(), t.data(), nullptr, out), KILN_ERR_BAD_ARGUMENT);
}

// SoftmaxCrossEntropy = NLL of log_softmax over C: log_prob matches a reference
// log-softmax, the loss matches the NLL reference on it, and the loss is the same
// whether or not log_prob is requested.
TEST(SoftmaxCrossEntropy, LogProbAndLossMatchReference) {
  const uint32_t n = 2, c = 5, d = 3;
  std::vector<float> x = scores<float>(n * c * d);
  x[7] = 80.0f;  // large score: the max subtraction keeps exp() finite
  const std::vector<float> w = {1.0f, 0.25f, 2.0f, 0.5f, 3.0f};
  std::vector<int64_t> t(n * d);
  for (size_t i = 0; i < t.size(); ++i) t[i] = int64_t((i * 2 + 1) % c);
  const std::vector<float> lp_ref = log_softmax_reference(x, n, c, d);
  for (kiln_loss_reduction_t red : {KILN_LOSS_NONE, KILN_LOSS_SUM, KILN_LOSS_MEAN}) {
    const Ref r = nll_reference(lp_ref, t, &w, n, c, d, true, 3);
    kiln_loss_params_t p = params(n, c, d, red, 8, true, 3);
    std::vector<float> out(n * d, -1.0f), out2(n * d, -1.0f), lp(x.size());
    ASSERT_EQ(kiln_softmax_cross_entropy_f32(&p, x.data(), t.data(), w.data(), out.data(), lp.data()), KILN_OK);
    ASSERT_EQ(kiln_softmax_cross_entropy_f32(&p, x.data(), t.data(), w.data(), out2.data(), nullptr), KILN_OK);
    for (size_t i = 0; i < lp.size(); ++i) EXPECT_NEAR(lp[i], lp_ref[i], 1e-5) << i;
    if (red == KILN_LOSS_NONE) {
      for (size_t i = 0; i < out.size(); ++i) EXPECT_NEAR(out[i], r.none[i], 1e-5) << i;
    } else {
      EXPECT_NEAR(out[0], red == KILN_LOSS_SUM ? r.sum : r.mean, 1e-5);
    }
    for (size_t i = 0; i < out.size(); ++i) EXPECT_EQ(out[i], out2[i]) << i;
  }
}

// log_prob may take the input's buffer: each lane is read before it is written.
TEST(SoftmaxCrossEntropy, LogProbInPlaceAndFloat64) {
  const uint32_t n = 3, c = 4, d = 2;
  const std::vector<double> x = scores<double>(n * c * d);
  const std::vector<int32_t> t = {0, 3, 2, 1, 1, 0};
  std::vector<int64_t> t64(t.begin(), t.end());
  const std::vector<double> lp_ref = log_softmax_reference(x, n, c, d);
  const Ref r = nll_reference(lp_ref, t64, static_cast<const std::vector<double>*>(nullptr), n, c, d, false, 0);
  std::vector<double> buf = x;
  double out = 0;
  kiln_loss_params_t p = params(n, c, d, KILN_LOSS_MEAN, 4, false, 0);
  ASSERT_EQ(kiln_softmax_cross_entropy_f64(&p, buf.data(), t.data(), nullptr, &out, buf.data()), KILN_OK);
  EXPECT_NEAR(out, r.mean, 1e-12);
  for (size_t i = 0; i < buf.size(); ++i) EXPECT_NEAR(buf[i], lp_ref[i], 1e-12) << i;
}

}  // namespace
