// Kernel tests for misc.h (Shrink, EyeLike, ReverseSequence, Dropout), sample.h
// (GridSample, RoiAlign) and signal.h (windows, DFT, STFT, MelWeightMatrix).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

extern "C" {
#include "kiln_kernels.h"
}

TEST(Shrink, SoftAndHard) {
  const float x[5] = {-2, -1, 0, 1, 2};
  float y[5];
  kiln_shrink_params_t p{5, 1.5f, 1.5f};
  ASSERT_EQ(kiln_shrink_f32(&p, x, y), KILN_OK);
  EXPECT_FLOAT_EQ(y[0], -0.5f);
  EXPECT_FLOAT_EQ(y[1], 0.0f);
  EXPECT_FLOAT_EQ(y[4], 0.5f);
  p.bias = 0.0f;
  ASSERT_EQ(kiln_shrink_f32(&p, x, y), KILN_OK);
  EXPECT_FLOAT_EQ(y[0], -2.0f);
  EXPECT_FLOAT_EQ(y[3], 0.0f);
}

TEST(EyeLike, OffDiagonalInt32) {
  kiln_eyelike_params_t p{};
  p.rows = 3, p.cols = 4, p.elem_size = 4, p.k = -1;
  p.one[0] = 1;
  int32_t y[12];
  ASSERT_EQ(kiln_eyelike(&p, y), KILN_OK);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c) EXPECT_EQ(y[r * 4 + c], c == r - 1 ? 1 : 0) << r << "," << c;
}

TEST(ReverseSequence, BatchMajorAndBadLength) {
  const float x[6] = {0, 1, 2, 10, 11, 12};  // [batch 2, time 3]
  const int64_t lens[2] = {2, 3};
  float y[6];
  kiln_reverse_sequence_params_t p{2, 3, 0, sizeof(float)};
  ASSERT_EQ(kiln_reverse_sequence(&p, x, lens, y), KILN_OK);
  const float want[6] = {1, 0, 2, 12, 11, 10};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(y[i], want[i]);
  const int64_t bad[2] = {4, 1};
  EXPECT_EQ(kiln_reverse_sequence(&p, x, bad, y), KILN_ERR_BAD_ARGUMENT);
}

TEST(Dropout, DeterministicOnlyWithoutRandomness) {
  const float x[3] = {1, 2, 3};
  float y[3];
  uint8_t mask[3] = {0, 0, 0};
  kiln_dropout_params_t p{3};
  const uint8_t on = 1, off = 0;
  const float zero = 0.0f, half = 0.5f;
  ASSERT_EQ(kiln_dropout_f32(&p, x, &half, &off, y, mask), KILN_OK);
  EXPECT_EQ(y[2], 3.0f);
  EXPECT_EQ(mask[1], 1u);
  ASSERT_EQ(kiln_dropout_f32(&p, x, &zero, &on, y, mask), KILN_OK);
  EXPECT_EQ(kiln_dropout_f32(&p, x, &half, &on, y, mask), KILN_ERR_BAD_ARGUMENT);
  EXPECT_EQ(kiln_dropout_f32(&p, x, NULL, &on, y, NULL), KILN_ERR_BAD_ARGUMENT);  // default ratio 0.5
}

TEST(GridSample, BilinearCenterAndZerosPadding) {
  const float x[4] = {0, 1, 2, 3};  // [1,1,2,2]
  const float grid[4] = {0.0f, 0.0f, -3.0f, 0.0f};  // image center; far left
  float y[2];
  kiln_grid_sample_params_t p{1, 1, 2, 2, 1, 2, KILN_GRID_BILINEAR, KILN_GRID_ZEROS, 0};
  ASSERT_EQ(kiln_grid_sample_f32(&p, x, grid, y), KILN_OK);
  EXPECT_FLOAT_EQ(y[0], 1.5f);
  EXPECT_FLOAT_EQ(y[1], 0.0f);
  p.padding_mode = KILN_GRID_BORDER;
  ASSERT_EQ(kiln_grid_sample_f32(&p, x, grid, y), KILN_OK);
  EXPECT_FLOAT_EQ(y[1], 1.0f);  // clamped to column 0, halfway between rows: (0 + 2) / 2
}

TEST(RoiAlign, ConstantImageAveragesToItself) {
  std::vector<float> x(16, 2.5f);
  const float rois[4] = {0, 0, 3, 3};
  const int64_t bi[1] = {0};
  const int64_t bad[1] = {1};
  float y[4];
  kiln_roi_align_params_t p{1, 1, 4, 4, 1, 2, 2, 2, 1.0f, 1, 0};
  ASSERT_EQ(kiln_roi_align_f32(&p, x.data(), rois, bi, y), KILN_OK);
  for (float v : y) EXPECT_FLOAT_EQ(v, 2.5f);
  EXPECT_EQ(kiln_roi_align_f32(&p, x.data(), rois, bad, y), KILN_ERR_BAD_ARGUMENT);
}

TEST(Window, HannPeriodicAndSizeCheck) {
  float y[4];
  int64_t n = 4;
  kiln_window_params_t p{4, KILN_WINDOW_HANN, 1, 8};
  ASSERT_EQ(kiln_window_f32(&p, &n, y), KILN_OK);
  EXPECT_NEAR(y[0], 0.0f, 1e-7);
  EXPECT_NEAR(y[1], 0.5f, 1e-7);
  EXPECT_NEAR(y[2], 1.0f, 1e-7);
  n = 5;
  EXPECT_EQ(kiln_window_f32(&p, &n, y), KILN_ERR_BAD_ARGUMENT);
}

TEST(Dft, ImpulseIsFlatAndInverseScales) {
  const float x[4] = {1, 0, 0, 0};  // real, n = 4
  float y[8];
  kiln_dft_params_t p{1, 4, 1, 1, 4, 4, 0};
  ASSERT_EQ(kiln_dft_f32(&p, x, y), KILN_OK);
  for (int k = 0; k < 4; ++k) {
    EXPECT_NEAR(y[2 * k], 1.0f, 1e-6);
    EXPECT_NEAR(y[2 * k + 1], 0.0f, 1e-6);
  }
  const float c[8] = {4, 0, 4, 0, 4, 0, 4, 0};  // flat spectrum -> 4 * impulse / 4
  kiln_dft_params_t inv{1, 4, 1, 2, 4, 4, 1};
  ASSERT_EQ(kiln_dft_f32(&inv, c, y), KILN_OK);
  EXPECT_NEAR(y[0], 4.0f, 1e-6);
  EXPECT_NEAR(y[2], 0.0f, 1e-6);
}

TEST(Stft, ConstantSignalHasOnlyDc) {
  std::vector<float> s(8, 1.0f);
  const int64_t step = 2, len = 4;
  float y[3 * 3 * 2];
  kiln_stft_params_t p{1, 8, 1, 3, 3, 1, 0};
  ASSERT_EQ(kiln_stft_f32(&p, s.data(), &step, NULL, &len, y), KILN_OK);
  for (int f = 0; f < 3; ++f) {
    EXPECT_NEAR(y[f * 6 + 0], 4.0f, 1e-6);
    EXPECT_NEAR(y[f * 6 + 2], 0.0f, 1e-6);
  }
  const int64_t wrong_step = 3;
  EXPECT_EQ(kiln_stft_f32(&p, s.data(), &wrong_step, NULL, &len, y), KILN_ERR_BAD_ARGUMENT);
}

TEST(MelWeightMatrix, RejectsUnplannedSize) {
  kiln_mel_weight_matrix_params_t p{8, 9, 8};
  const int64_t mels = 8, dft = 16, rate = 8192, dft_bad = 20;
  const float lo = 0.0f, hi = 4096.0f;
  std::vector<float> y(72);
  ASSERT_EQ(kiln_mel_weight_matrix_f32(&p, &mels, &dft, &rate, &lo, &hi, y.data()), KILN_OK);
  for (int j = 0; j < 8; ++j) {  // every filter has a peak of 1
    float mx = 0;
    for (int b = 0; b < 9; ++b) mx = std::max(mx, y[b * 8 + j]);
    EXPECT_FLOAT_EQ(mx, 1.0f) << j;
  }
  EXPECT_EQ(kiln_mel_weight_matrix_f32(&p, &mels, &dft_bad, &rate, &lo, &hi, y.data()), KILN_ERR_BAD_ARGUMENT);
}
