// Unit tests of the normalization, recurrent, Einsum and Det kernels against
// hand-worked cases and straightforward reference loops written here.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

extern "C" {
#include "kiln_kernels.h"
}

namespace {

std::vector<float> ramp(size_t n, float scale = 0.37f) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = std::sin(float(i) * scale) * 2.0f + 0.1f * float(i % 5);
  return v;
}

TEST(InstanceNorm, NormalizesEachPlaneThenScales) {
  const uint32_t n = 2, c = 3, size = 7;
  std::vector<float> x = ramp(n * c * size), y(x.size());
  const float scale[] = {1.0f, -2.0f, 0.5f}, bias[] = {0.0f, 1.0f, -3.0f};
  kiln_instancenorm_params_t p = {n, c, size, 1e-5f};
  ASSERT_EQ(kiln_instancenorm_f32(&p, x.data(), scale, bias, y.data()), KILN_OK);
  for (uint32_t b = 0; b < n; ++b)
    for (uint32_t ch = 0; ch < c; ++ch) {
      const float* px = &x[(b * c + ch) * size];
      double mean = 0, var = 0;
      for (uint32_t i = 0; i < size; ++i) mean += px[i];
      mean /= size;
      for (uint32_t i = 0; i < size; ++i) var += (px[i] - mean) * (px[i] - mean);
      var /= size;
      for (uint32_t i = 0; i < size; ++i)
        EXPECT_NEAR(y[(b * c + ch) * size + i], (px[i] - mean) / std::sqrt(var + 1e-5) * scale[ch] + bias[ch], 1e-5);
    }
  EXPECT_EQ(kiln_instancenorm_f32(&p, x.data(), nullptr, bias, y.data()), KILN_ERR_NULL_POINTER);
}

TEST(LayerNorm, WritesMeanAndInvStdDev) {
  const float x[] = {1, 2, 3, 4, 10, 10, 10, 14};
  const float w[] = {1, 1, 2, 2}, b[] = {0, 0, 1, 1};
  float y[8], mean[2], inv[2];
  kiln_layernorm_params_t p = {2, 4, 0.0f};
  ASSERT_EQ(kiln_layernorm_f32(&p, x, w, b, y, mean, inv), KILN_OK);
  EXPECT_FLOAT_EQ(mean[0], 2.5f);
  EXPECT_FLOAT_EQ(inv[0], 1.0f / std::sqrt(1.25f));
  EXPECT_FLOAT_EQ(mean[1], 11.0f);
  EXPECT_FLOAT_EQ(inv[1], 1.0f / std::sqrt(3.0f));
  EXPECT_NEAR(y[0], -1.5f / std::sqrt(1.25f), 1e-6);
  EXPECT_NEAR(y[3], 1.5f / std::sqrt(1.25f) * 2 + 1, 1e-6);
  EXPECT_NEAR(y[7], 3.0f / std::sqrt(3.0f) * 2 + 1, 1e-5);
  // Bias and the statistics outputs are optional.
  ASSERT_EQ(kiln_layernorm_f32(&p, x, w, nullptr, y, nullptr, nullptr), KILN_OK);
  EXPECT_NEAR(y[3], 1.5f / std::sqrt(1.25f) * 2, 1e-6);
}

TEST(Lrn, WindowIsClippedAtTheChannelEdges) {
  const uint32_t c = 5, spatial = 2;
  std::vector<float> x = ramp(c * spatial), y(x.size());
  kiln_lrn_params_t p = {1, c, spatial, 4, 0.5f, 0.75f, 2.0f};
  ASSERT_EQ(kiln_lrn_f32(&p, x.data(), y.data()), KILN_OK);
  for (uint32_t ch = 0; ch < c; ++ch)
    for (uint32_t s = 0; s < spatial; ++s) {
      // size 4: channels [c - 1, c + 2].
      double sum = 0;
      for (int k = int(ch) - 1; k <= int(ch) + 2; ++k)
        if (k >= 0 && k < int(c)) sum += double(x[k * spatial + s]) * x[k * spatial + s];
      EXPECT_NEAR(y[ch * spatial + s], x[ch * spatial + s] / std::pow(2.0 + 0.5 / 4 * sum, 0.75), 1e-5);
    }
  EXPECT_EQ(kiln_lrn_f32(&p, x.data(), x.data()), KILN_ERR_BAD_ARGUMENT);
}

TEST(Mvn, ReducesOverTheGivenAxes) {
  // [2, 3, 2] reduced over axes 0 and 2; kept axis 1 (stride 2).
  std::vector<float> x = ramp(12), y(12);
  kiln_mvn_params_t p = {};
  p.kept_ndim = 1;
  p.kept_shape[0] = 3;
  p.kept_stride[0] = 2;
  p.red_ndim = 2;
  p.red_shape[0] = 2;
  p.red_stride[0] = 6;
  p.red_shape[1] = 2;
  p.red_stride[1] = 1;
  ASSERT_EQ(kiln_mvn_f32(&p, x.data(), y.data()), KILN_OK);
  for (int k = 0; k < 3; ++k) {
    const int idx[] = {k * 2, k * 2 + 1, 6 + k * 2, 6 + k * 2 + 1};
    double mean = 0, var = 0;
    for (int i : idx) mean += x[i];
    mean /= 4;
    for (int i : idx) var += (x[i] - mean) * (x[i] - mean);
    var /= 4;
    for (int i : idx) EXPECT_NEAR(y[i], (x[i] - mean) / (std::sqrt(var) + 1e-9), 1e-5);
  }
}

kiln_rnn_shape_t shape1(uint32_t seq, uint32_t batch, uint32_t dirs, uint32_t reverse) {
  kiln_rnn_shape_t s = {};
  s.seq = seq;
  s.batch = batch;
  s.input = 1;
  s.hidden = 1;
  s.dirs = dirs;
  s.reverse = reverse;
  return s;
}

TEST(Rnn, HandWorkedStepsWithSequenceLengthsAndBothDirections) {
  // hidden = input = 1: h_t = tanh(w x_t + r h_{t-1} + wb + rb).
  kiln_rnn_params_t p = {};
  p.s = shape1(3, 2, 2, 0);
  p.act[0].kind = KILN_ACT_TANH;
  p.act[1].kind = KILN_ACT_RELU;
  const float x[] = {1, 2, 3, 4, 5, 6};  // [seq 3, batch 2, 1]
  const float w[] = {0.5f, 1.0f}, r[] = {0.25f, -1.0f}, b[] = {0.1f, 0.0f, 0.0f, -0.5f};
  const int32_t lens[] = {3, 2};
  float y[3 * 2 * 2], yh[2 * 2], scratch[16];
  ASSERT_EQ(kiln_rnn_f32(&p, x, w, r, b, lens, nullptr, y, yh, scratch), KILN_OK);
  // Forward, batch 0: x = 1, 3, 5.
  float h = 0;
  for (int t = 0; t < 3; ++t) {
    h = std::tanh(0.5f * x[t * 2] + 0.25f * h + 0.1f);
    EXPECT_NEAR(y[(t * 2 + 0) * 2 + 0], h, 1e-6);
  }
  EXPECT_NEAR(yh[0], h, 1e-6);
  // Forward, batch 1 (length 2): x = 2, 4; step 2 of Y stays zero.
  h = 0;
  for (int t = 0; t < 2; ++t) h = std::tanh(0.5f * x[t * 2 + 1] + 0.25f * h + 0.1f);
  EXPECT_NEAR(yh[1], h, 1e-6);
  EXPECT_EQ(y[(2 * 2 + 0) * 2 + 1], 0.0f);
  // Reverse, batch 1 (length 2): steps t = 1 then 0, relu(x - h - 0.5).
  float h1 = std::max(0.0f, 4.0f - 0.5f), h0 = std::max(0.0f, 2.0f - h1 - 0.5f);
  EXPECT_NEAR(y[(1 * 2 + 1) * 2 + 1], h1, 1e-6);
  EXPECT_NEAR(y[(0 * 2 + 1) * 2 + 1], h0, 1e-6);
  EXPECT_NEAR(yh[1 * 2 + 1], h0, 1e-6);
}

TEST(Gru, BothResetPlacements) {
  const float x[] = {0.7f, -1.2f};
  const float w[] = {0.5f, -0.3f, 0.8f}, r[] = {0.2f, 0.4f, -0.6f};
  const float b[] = {0.1f, 0.2f, 0.3f, -0.1f, 0.05f, 0.4f};
  for (uint32_t lbr = 0; lbr < 2; ++lbr) {
    kiln_gru_params_t p = {};
    p.s = shape1(2, 1, 1, 0);
    p.act[0][0].kind = KILN_ACT_SIGMOID;
    p.act[0][1].kind = KILN_ACT_TANH;
    p.linear_before_reset = lbr;
    float y[2], yh[1], scratch[16];
    ASSERT_EQ(kiln_gru_f32(&p, x, w, r, b, nullptr, nullptr, y, yh, scratch), KILN_OK);
    auto sig = [](float v) { return 1.0f / (1.0f + std::exp(-v)); };
    float h = 0;
    for (int t = 0; t < 2; ++t) {
      const float z = sig(w[0] * x[t] + r[0] * h + b[0] + b[3]);
      const float rr = sig(w[1] * x[t] + r[1] * h + b[1] + b[4]);
      const float cand = lbr ? std::tanh(w[2] * x[t] + b[2] + rr * (r[2] * h + b[5]))
                             : std::tanh(w[2] * x[t] + r[2] * (rr * h) + b[5] + b[2]);
      h = (1 - z) * cand + z * h;
      EXPECT_NEAR(y[t], h, 1e-6) << "lbr " << lbr << " t " << t;
    }
    EXPECT_NEAR(yh[0], h, 1e-6);
  }
}

TEST(Lstm, PeepholesInitialStateAndInputForget) {
  const float x[] = {0.5f, -0.25f};
  const float w[] = {0.3f, -0.2f, 0.6f, 0.9f}, r[] = {0.1f, 0.5f, -0.4f, 0.2f};  // gates i o f c
  const float peep[] = {0.7f, -0.3f, 0.2f};                                         // i o f
  const float h0 = 0.2f, c0 = -0.4f;
  for (uint32_t coupled = 0; coupled < 2; ++coupled) {
    kiln_lstm_params_t p = {};
    p.s = shape1(2, 1, 1, 0);
    p.s.clip = 0.45f;
    for (auto& a : p.act[0]) a.kind = KILN_ACT_TANH;
    p.act[0][0].kind = KILN_ACT_SIGMOID;
    p.input_forget = coupled;
    float y[2], yh[1], yc[1], scratch[16];
    ASSERT_EQ(kiln_lstm_f32(&p, x, w, r, nullptr, nullptr, &h0, &c0, peep, y, yh, yc, scratch), KILN_OK);
    auto sig = [](float v) { return 1.0f / (1.0f + std::exp(-v)); };
    auto clip = [](float v) { return std::min(0.45f, std::max(-0.45f, v)); };
    float h = h0, c = c0;
    for (int t = 0; t < 2; ++t) {
      const float i = sig(clip(w[0] * x[t] + r[0] * h + peep[0] * c));
      const float f = coupled ? 1 - i : sig(clip(w[2] * x[t] + r[2] * h + peep[2] * c));
      const float g = std::tanh(clip(w[3] * x[t] + r[3] * h));
      c = f * c + i * g;
      const float o = sig(clip(w[1] * x[t] + r[1] * h + peep[1] * c));
      h = o * std::tanh(c);
      EXPECT_NEAR(y[t], h, 1e-6);
    }
    EXPECT_NEAR(yh[0], h, 1e-6);
    EXPECT_NEAR(yc[0], c, 1e-6);
  }
}

TEST(Einsum, BatchMatmulAndDiagonal) {
  // bij,bjk->bik with b=2, i=2, j=3, k=2; letters b i k (out) then j.
  std::vector<double> a(12), bm(12), out(8);
  for (size_t i = 0; i < 12; ++i) a[i] = double(i) - 4, bm[i] = 0.5 * double(i);
  kiln_einsum_params_t p = {};
  p.nops = 2;
  p.nidx = 4;
  p.nout = 3;
  const uint32_t ext[] = {2, 2, 2, 3};
  const int32_t sa[] = {6, 3, 0, 1}, sb[] = {6, 0, 1, 2};
  for (int l = 0; l < 4; ++l) p.extent[l] = ext[l], p.stride[0][l] = sa[l], p.stride[1][l] = sb[l];
  const void* ins[] = {a.data(), bm.data()};
  ASSERT_EQ(kiln_einsum_f64(&p, ins, out.data()), KILN_OK);
  for (int b = 0; b < 2; ++b)
    for (int i = 0; i < 2; ++i)
      for (int k = 0; k < 2; ++k) {
        double ref = 0;
        for (int j = 0; j < 3; ++j) ref += a[b * 6 + i * 3 + j] * bm[b * 6 + j * 2 + k];
        EXPECT_DOUBLE_EQ(out[b * 4 + i * 2 + k], ref);
      }
  // ii->i on a 3x3 float matrix: one letter with stride 3 + 1.
  const float m[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  float d[3];
  kiln_einsum_params_t q = {};
  q.nops = 1;
  q.nidx = 1;
  q.nout = 1;
  q.extent[0] = 3;
  q.stride[0][0] = 4;
  const void* one[] = {m};
  ASSERT_EQ(kiln_einsum_f32(&q, one, d), KILN_OK);
  EXPECT_EQ(d[0], 1.0f);
  EXPECT_EQ(d[1], 5.0f);
  EXPECT_EQ(d[2], 9.0f);
}

TEST(Det, PivotingSignAndSingular) {
  const float m[] = {0, 1, 1, 0,              // swap: -1
                     2, 0, 1, 1, 3, 2, 1, 1, 1};  // a singular 3x3
  float out[1];
  double scratch[9];
  kiln_det_params_t p2 = {1, 2};
  ASSERT_EQ(kiln_det_f32(&p2, m, out, scratch), KILN_OK);
  EXPECT_FLOAT_EQ(out[0], -1.0f);
  kiln_det_params_t p3 = {1, 3};
  ASSERT_EQ(kiln_det_f32(&p3, m + 4, out, scratch), KILN_OK);
  // Singular: 2*(3*1-2*1) - 0 + 1*(1*1-3*1) = 0.
  EXPECT_NEAR(out[0], 0.0f, 1e-6);
  const float n3[] = {4, 3, 2, 1, 3, 1, 2, 5, 7};
  ASSERT_EQ(kiln_det_f32(&p3, n3, out, scratch), KILN_OK);
  // 4*(21-5) - 3*(7-2) + 2*(5-6) = 64 - 15 - 2 = 47
  EXPECT_NEAR(out[0], 47.0f, 1e-4);
}

TEST(BatchNormTraining, UsesBatchStatisticsAndBlendsRunningOnes) {
  // n = 2, c = 1, size = 2: x = {1, 3 | 5, 7}: batch mean 4, population var 5.
  const float x[] = {1, 3, 5, 7}, scale[] = {2}, bias[] = {1}, mean[] = {10}, var[] = {1};
  float y[4], om[1], ov[1];
  kiln_batchnorm_training_params_t p = {2, 1, 2, 0.0f, 0.9f};
  ASSERT_EQ(kiln_batchnorm_training_f32(&p, x, scale, bias, mean, var, y, om, ov), KILN_OK);
  EXPECT_NEAR(om[0], 10 * 0.9f + 4 * 0.1f, 1e-5);
  EXPECT_NEAR(ov[0], 1 * 0.9f + 5 * 0.1f, 1e-5);
  EXPECT_NEAR(y[0], (1 - 4) / std::sqrt(5.0f) * 2 + 1, 1e-5);
  EXPECT_NEAR(y[3], (7 - 4) / std::sqrt(5.0f) * 2 + 1, 1e-5);
}

TEST(ControlFlow, SelectAndTakeSlice) {
  const float a[] = {1, 2}, b[] = {3, 4};
  float out[2];
  const uint8_t yes = 1, no = 0;
  ASSERT_EQ(kiln_select_bytes(&yes, a, b, out, sizeof out), KILN_OK);
  EXPECT_EQ(out[1], 2.0f);
  ASSERT_EQ(kiln_select_bytes(&no, a, b, out, sizeof out), KILN_OK);
  EXPECT_EQ(out[0], 3.0f);
  // [2, 3, 2] int16 tensor, slice 2 of axis 1 -> [2, 2].
  int16_t x[12], s[4];
  for (int i = 0; i < 12; ++i) x[i] = int16_t(i);
  kiln_take_slice_params_t p = {2, 3, 2 * sizeof(int16_t), 2};
  ASSERT_EQ(kiln_take_slice(&p, x, s), KILN_OK);
  EXPECT_EQ(s[0], 4);
  EXPECT_EQ(s[1], 5);
  EXPECT_EQ(s[2], 10);
  EXPECT_EQ(s[3], 11);
  p.index = 3;
  EXPECT_EQ(kiln_take_slice(&p, x, s), KILN_ERR_BAD_ARGUMENT);
}

// A flattened Loop's output passes only when the run-time check holds; in place too.
TEST(ControlFlow, GuardPassesOnlyWhenTheCheckHolds) {
  const float in[] = {5, 6};
  float out[2] = {0, 0};
  const uint8_t yes = 1, no = 0;
  ASSERT_EQ(kiln_guard_bytes(&yes, in, out, sizeof out), KILN_OK);
  EXPECT_EQ(out[0], 5.0f);
  EXPECT_EQ(out[1], 6.0f);
  float same[] = {7, 8};
  ASSERT_EQ(kiln_guard_bytes(&yes, same, same, sizeof same), KILN_OK);
  EXPECT_EQ(same[1], 8.0f);
  out[0] = 0;
  EXPECT_EQ(kiln_guard_bytes(&no, in, out, sizeof out), KILN_ERR_BAD_ARGUMENT);
  EXPECT_EQ(out[0], 0.0f);
  EXPECT_EQ(kiln_guard_bytes(nullptr, in, out, sizeof out), KILN_ERR_NULL_POINTER);
}

}  // namespace
