// Unit tests of the training-step kernels (Adagrad, Momentum, Adam) against the ONNX
// update rules written out here in double precision, one element at a time.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

extern "C" {
#include "kiln_kernels.h"
}

namespace {

TEST(Adagrad, TwoTensorsWithDecayAndRegularization) {
  kiln_adagrad_params_t p = {};
  p.num_tensors = 2;
  p.n[0] = 2;
  p.n[1] = 3;
  p.decay_factor = 0.1f;
  p.epsilon = 1e-5f;
  p.norm_coefficient = 0.01f;
  float r = 0.5f;
  int64_t t = 3;
  std::vector<float> x1{1.f, -2.f}, g1{0.5f, 0.25f}, h1{0.1f, 2.f};
  std::vector<float> x2{0.f, 3.f, -1.f}, g2{-1.f, 0.f, 2.f}, h2{0.f, 1.f, 4.f};
  std::vector<float> x1n(2), h1n(2), x2n(3), h2n(3);
  const void* in[] = {&r, &t, x1.data(), x2.data(), g1.data(), g2.data(), h1.data(), h2.data()};
  void* out[] = {x1n.data(), x2n.data(), h1n.data(), h2n.data()};
  ASSERT_EQ(kiln_adagrad_f32(&p, in, out), KILN_OK);
  const double rr = 0.5 / (1 + 3 * 0.1);
  auto check = [&](const std::vector<float>& x, const std::vector<float>& g, const std::vector<float>& h,
                   const std::vector<float>& xn, const std::vector<float>& hn) {
    for (size_t i = 0; i < x.size(); ++i) {
      const double gr = 0.01 * x[i] + g[i];
      const double hh = h[i] + gr * gr;
      EXPECT_NEAR(hn[i], hh, 1e-6);
      EXPECT_NEAR(xn[i], x[i] - rr * gr / (std::sqrt(hh) + 1e-5), 1e-5);
    }
  };
  check(x1, g1, h1, x1n, h1n);
  check(x2, g2, h2, x2n, h2n);
}

TEST(Momentum, FirstIterationUsesBetaOneAndNesterovLooksAhead) {
  for (uint32_t nesterov : {0u, 1u}) {
    for (int64_t t : {int64_t(0), int64_t(5)}) {
      kiln_momentum_params_t p = {};
      p.num_tensors = 1;
      p.n[0] = 3;
      p.alpha = 0.9f;
      p.beta = 0.25f;
      p.norm_coefficient = 0.02f;
      p.nesterov = nesterov;
      float r = 0.1f;
      std::vector<float> x{1.f, 2.f, -3.f}, g{0.5f, -0.5f, 1.f}, v{0.f, 1.f, -2.f}, xn(3), vn(3);
      const void* in[] = {&r, &t, x.data(), g.data(), v.data()};
      void* out[] = {xn.data(), vn.data()};
      ASSERT_EQ(kiln_momentum_f32(&p, in, out), KILN_OK);
      const double b = t > 0 ? 0.25 : 1.0;
      for (size_t i = 0; i < 3; ++i) {
        const double gr = 0.02 * x[i] + g[i];
        const double vv = 0.9 * v[i] + b * gr;
        EXPECT_NEAR(vn[i], vv, 1e-6);
        EXPECT_NEAR(xn[i], nesterov ? x[i] - 0.1 * (gr + 0.9 * vv) : x[i] - 0.1 * vv, 1e-6);
      }
    }
  }
}

TEST(Adam, BiasCorrectionAfterTheFirstStepAndPostRegularization) {
  for (int64_t t : {int64_t(0), int64_t(4)}) {
    kiln_adam_params_t p = {};
    p.num_tensors = 1;
    p.n[0] = 2;
    p.alpha = 0.9f;
    p.beta = 0.99f;
    p.epsilon = 1e-3f;
    p.norm_coefficient = 0.01f;
    p.norm_coefficient_post = 0.05f;
    float r = 0.2f;
    std::vector<float> x{1.5f, -0.5f}, g{0.3f, -1.2f}, v{0.1f, 0.2f}, h{0.01f, 0.5f}, xn(2), vn(2), hn(2);
    const void* in[] = {&r, &t, x.data(), g.data(), v.data(), h.data()};
    void* out[] = {xn.data(), vn.data(), hn.data()};
    ASSERT_EQ(kiln_adam_f32(&p, in, out), KILN_OK);
    const double rr = t > 0 ? 0.2 * std::sqrt(1 - std::pow(0.99, double(t))) / (1 - std::pow(0.9, double(t))) : 0.2;
    for (size_t i = 0; i < 2; ++i) {
      const double gr = 0.01 * x[i] + g[i];
      const double vv = 0.9 * v[i] + 0.1 * gr;
      const double hh = 0.99 * h[i] + 0.01 * gr * gr;
      EXPECT_NEAR(vn[i], vv, 1e-6);
      EXPECT_NEAR(hn[i], hh, 1e-6);
      EXPECT_NEAR(xn[i], 0.95 * (x[i] - rr * vv / (std::sqrt(hh) + 1e-3)), 1e-5);
    }
  }
}

TEST(Optimizers, UpdateInPlaceAndRejectBadArguments) {
  kiln_momentum_params_t p = {};
  p.num_tensors = 1;
  p.n[0] = 2;
  p.alpha = 0.5f;
  p.beta = 1.f;
  float r = 1.f;
  int64_t t = 1;
  std::vector<float> x{1.f, 2.f}, g{1.f, 1.f}, v{0.f, 2.f};
  const void* in[] = {&r, &t, x.data(), g.data(), v.data()};
  void* out[] = {x.data(), v.data()};  // the new weights and state overwrite the old
  ASSERT_EQ(kiln_momentum_f32(&p, in, out), KILN_OK);
  EXPECT_FLOAT_EQ(v[0], 1.f);
  EXPECT_FLOAT_EQ(v[1], 2.f);
  EXPECT_FLOAT_EQ(x[0], 0.f);
  EXPECT_FLOAT_EQ(x[1], 0.f);
  p.num_tensors = KILN_OPTIMIZER_MAX_TENSORS + 1;
  EXPECT_EQ(kiln_momentum_f32(&p, in, out), KILN_ERR_BAD_ARGUMENT);
  p.num_tensors = 1;
  const void* missing[] = {&r, &t, x.data(), nullptr, v.data()};
  EXPECT_EQ(kiln_momentum_f32(&p, missing, out), KILN_ERR_NULL_POINTER);
}

}  // namespace
