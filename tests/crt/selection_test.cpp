// Kernel tests for selection.h: NonZero, Compress, Unique, NonMaxSuppression,
// against hand-computed results, and the count check (the planned number of rows
// differs from the run-time one: KILN_ERR_BAD_ARGUMENT, outputs untouched).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

extern "C" {
#include "kiln_kernels.h"
}

namespace {

kiln_nonzero_params_t nonzero_params(std::vector<uint32_t> shape, uint32_t type, uint32_t count) {
  kiln_nonzero_params_t p{};
  p.ndim = uint32_t(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) p.shape[d] = shape[d];
  p.elem_type = type;
  p.count = count;
  return p;
}

}  // namespace

TEST(NonZero, Float2DRowMajor) {
  // [[1, 0], [-0.0, 3], [NaN, 0]]: NaN is non-zero, -0.0 is zero.
  const float x[6] = {1.0f, 0.0f, -0.0f, 3.0f, NAN, 0.0f};
  int64_t y[6];
  kiln_nonzero_params_t p = nonzero_params({3, 2}, KILN_SEL_F32, 3);
  ASSERT_EQ(kiln_nonzero(&p, x, y), KILN_OK);
  const int64_t expected[6] = {0, 1, 2, 0, 1, 0};  // rows, then columns
  for (int i = 0; i < 6; ++i) EXPECT_EQ(y[i], expected[i]) << i;
}

TEST(NonZero, BoolAndInt3D) {
  const uint8_t b[4] = {0, 1, 1, 0};  // [2, 2]
  int64_t y[4];
  kiln_nonzero_params_t p = nonzero_params({2, 2}, KILN_SEL_U8, 2);
  ASSERT_EQ(kiln_nonzero(&p, b, y), KILN_OK);
  EXPECT_EQ(y[0], 0);
  EXPECT_EQ(y[1], 1);
  EXPECT_EQ(y[2], 1);
  EXPECT_EQ(y[3], 0);
  const int64_t x[8] = {0, 0, 0, 0, 0, 0, 0, -5};  // [2, 2, 2]: only (1, 1, 1)
  int64_t z[3];
  p = nonzero_params({2, 2, 2}, KILN_SEL_I64, 1);
  ASSERT_EQ(kiln_nonzero(&p, x, z), KILN_OK);
  EXPECT_EQ(z[0], 1);
  EXPECT_EQ(z[1], 1);
  EXPECT_EQ(z[2], 1);
}

TEST(NonZero, CountMismatch) {
  const int32_t x[4] = {1, 0, 2, 3};
  int64_t y[8] = {-7, -7, -7, -7, -7, -7, -7, -7};
  kiln_nonzero_params_t p = nonzero_params({4}, KILN_SEL_I32, 2);  // really 3
  EXPECT_EQ(kiln_nonzero(&p, x, y), KILN_ERR_BAD_ARGUMENT);
  p.count = 4;
  EXPECT_EQ(kiln_nonzero(&p, x, y), KILN_ERR_BAD_ARGUMENT);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(y[i], -7);
}

TEST(Compress, AxisAndFlattened) {
  const float x[6] = {1, 2, 3, 4, 5, 6};  // [3, 2]
  const uint8_t c0[3] = {0, 1, 1};
  float y[6];
  kiln_compress_params_t p{1, 3, 2, 3, 4, 2};  // axis 0
  ASSERT_EQ(kiln_compress(&p, x, c0, y), KILN_OK);
  const float e0[4] = {3, 4, 5, 6};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(y[i], e0[i]);
  const uint8_t c1[1] = {0};  // axis 1, condition shorter than the axis: nothing
  p = kiln_compress_params_t{3, 2, 1, 1, 4, 0};
  EXPECT_EQ(kiln_compress(&p, x, c1, y), KILN_OK);
  const uint8_t c2[2] = {0, 1};  // axis 1: second column
  p = kiln_compress_params_t{3, 2, 1, 2, 4, 1};
  ASSERT_EQ(kiln_compress(&p, x, c2, y), KILN_OK);
  EXPECT_EQ(y[0], 2);
  EXPECT_EQ(y[1], 4);
  EXPECT_EQ(y[2], 6);
  const uint8_t c3[5] = {0, 1, 0, 0, 1};  // flattened
  p = kiln_compress_params_t{1, 6, 1, 5, 4, 2};
  ASSERT_EQ(kiln_compress(&p, x, c3, y), KILN_OK);
  EXPECT_EQ(y[0], 2);
  EXPECT_EQ(y[1], 5);
}

TEST(Compress, CountMismatchAndConditionTooLong) {
  const int64_t x[3] = {10, 20, 30};
  const uint8_t c[4] = {1, 0, 1, 0};
  int64_t y[3] = {-1, -1, -1};
  kiln_compress_params_t p{1, 3, 1, 4, 8, 1};  // really 2
  EXPECT_EQ(kiln_compress(&p, x, c, y), KILN_ERR_BAD_ARGUMENT);
  EXPECT_EQ(y[0], -1);
  p.count = 2;  // trailing false entries beyond the axis are fine
  ASSERT_EQ(kiln_compress(&p, x, c, y), KILN_OK);
  EXPECT_EQ(y[0], 10);
  EXPECT_EQ(y[1], 30);
  const uint8_t c_bad[4] = {0, 0, 0, 1};  // selects index 3 of 3
  p.count = 1;
  EXPECT_EQ(kiln_compress(&p, x, c_bad, y), KILN_ERR_BAD_ARGUMENT);
}

TEST(Unique, SortedAndUnsortedFlat) {
  const float x[6] = {2, 1, 1, 3, 4, 3};
  float y[4];
  int64_t idx[4], inv[6], cnt[4];
  uint32_t scratch[18];
  kiln_unique_params_t p{1, 6, 1, KILN_SEL_F32, 1, 4};
  ASSERT_EQ(kiln_unique(&p, x, y, idx, inv, cnt, scratch), KILN_OK);
  const float ey[4] = {1, 2, 3, 4};
  const int64_t eidx[4] = {1, 0, 3, 4}, einv[6] = {1, 0, 0, 2, 3, 2}, ecnt[4] = {2, 1, 2, 1};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(y[i], ey[i]);
    EXPECT_EQ(idx[i], eidx[i]);
    EXPECT_EQ(cnt[i], ecnt[i]);
  }
  for (int i = 0; i < 6; ++i) EXPECT_EQ(inv[i], einv[i]);
  p.sorted = 0;
  ASSERT_EQ(kiln_unique(&p, x, y, idx, inv, cnt, scratch), KILN_OK);
  const float uy[4] = {2, 1, 3, 4};
  const int64_t uidx[4] = {0, 1, 3, 4}, uinv[6] = {0, 1, 1, 2, 3, 2}, ucnt[4] = {1, 2, 2, 1};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(y[i], uy[i]);
    EXPECT_EQ(idx[i], uidx[i]);
    EXPECT_EQ(cnt[i], ucnt[i]);
  }
  for (int i = 0; i < 6; ++i) EXPECT_EQ(inv[i], uinv[i]);
  // Only Y wanted.
  p.sorted = 1;
  ASSERT_EQ(kiln_unique(&p, x, y, nullptr, nullptr, nullptr, scratch), KILN_OK);
  EXPECT_EQ(y[0], 1);
}

TEST(Unique, Int64Axis) {
  // [[1, 0, 0], [1, 0, 0], [2, 3, 3]] along axis 1 (columns): [1,1,2], [0,0,3], [0,0,3].
  const int64_t x[9] = {1, 0, 0, 1, 0, 0, 2, 3, 3};
  int64_t y[6], idx[2], inv[3], cnt[2];
  uint32_t scratch[9];
  kiln_unique_params_t p{3, 3, 1, KILN_SEL_I64, 1, 2};
  ASSERT_EQ(kiln_unique(&p, x, y, idx, inv, cnt, scratch), KILN_OK);
  const int64_t ey[6] = {0, 1, 0, 1, 3, 2};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(y[i], ey[i]) << i;
  EXPECT_EQ(idx[0], 1);
  EXPECT_EQ(idx[1], 0);
  EXPECT_EQ(inv[0], 1);
  EXPECT_EQ(inv[1], 0);
  EXPECT_EQ(inv[2], 0);
  EXPECT_EQ(cnt[0], 2);
  EXPECT_EQ(cnt[1], 1);
}

TEST(Unique, CountMismatch) {
  const int32_t x[5] = {5, 5, 1, 7, 1};  // 3 unique
  int32_t y[4] = {-1, -1, -1, -1};
  int64_t idx[4] = {-1, -1, -1, -1};
  uint32_t scratch[15];
  kiln_unique_params_t p{1, 5, 1, KILN_SEL_I32, 1, 2};
  EXPECT_EQ(kiln_unique(&p, x, y, idx, nullptr, nullptr, scratch), KILN_ERR_BAD_ARGUMENT);
  p.count = 4;
  EXPECT_EQ(kiln_unique(&p, x, y, idx, nullptr, nullptr, scratch), KILN_ERR_BAD_ARGUMENT);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(y[i], -1);
    EXPECT_EQ(idx[i], -1);
  }
}

namespace {

// The ONNX test boxes: two clusters of three overlapping boxes, one far away.
const float kBoxes[24] = {0.0f, 0.0f, 1.0f, 1.0f,  0.0f, 0.1f,  1.0f, 1.1f,  0.0f, -0.1f, 1.0f, 0.9f,
                          0.0f, 10.0f, 1.0f, 11.0f, 0.0f, 10.1f, 1.0f, 11.1f, 0.0f, 100.0f, 1.0f, 101.0f};
const float kScores[6] = {0.9f, 0.75f, 0.6f, 0.95f, 0.5f, 0.3f};

}  // namespace

TEST(NonMaxSuppression, SuppressByIouAndScore) {
  int64_t y[9];
  uint32_t scratch[12];
  const int64_t max_out = 3;
  const float iou = 0.5f, score0 = 0.0f, score4 = 0.4f;
  kiln_nms_params_t p{1, 1, 6, 0, 3};
  ASSERT_EQ(kiln_non_max_suppression(&p, kBoxes, kScores, &max_out, &iou, &score0, y, scratch), KILN_OK);
  const int64_t e[9] = {0, 0, 3, 0, 0, 0, 0, 0, 5};
  for (int i = 0; i < 9; ++i) EXPECT_EQ(y[i], e[i]) << i;
  p.count = 2;
  ASSERT_EQ(kiln_non_max_suppression(&p, kBoxes, kScores, &max_out, &iou, &score4, y, scratch), KILN_OK);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(y[i], e[i]) << i;
  // No max_output_boxes_per_class: no boxes.
  p.count = 0;
  EXPECT_EQ(kiln_non_max_suppression(&p, kBoxes, kScores, nullptr, &iou, &score0, y, scratch), KILN_OK);
}

TEST(NonMaxSuppression, CenterFormatTiesAndClasses) {
  // Center format [xc, yc, w, h]; two classes; equal scores: lower index first.
  const float boxes[12] = {0.5f, 0.5f, 1.0f, 1.0f, 5.5f, 0.5f, 1.0f, 1.0f, 0.5f, 0.6f, 1.0f, 1.0f};
  const float scores[6] = {0.5f, 0.5f, 0.5f,  // class 0: all equal
                           0.1f, 0.2f, 0.9f};  // class 1
  int64_t y[12];
  uint32_t scratch[6];
  const int64_t max_out = 10;
  const float iou = 0.5f;
  kiln_nms_params_t p{1, 2, 3, 1, 4};
  ASSERT_EQ(kiln_non_max_suppression(&p, boxes, scores, &max_out, &iou, nullptr, y, scratch), KILN_OK);
  // class 0: 0, then 1 (far away), 2 suppressed by 0; class 1: 2 (0.9), then 1, 0 suppressed by 2.
  const int64_t e[12] = {0, 0, 0, 0, 0, 1, 0, 1, 2, 0, 1, 1};
  for (int i = 0; i < 12; ++i) EXPECT_EQ(y[i], e[i]) << i;
}

TEST(NonMaxSuppression, CountMismatch) {
  int64_t y[12];
  for (auto& v : y) v = -9;
  uint32_t scratch[12];
  const int64_t max_out = 3;
  const float iou = 0.5f, score = 0.0f;
  kiln_nms_params_t p{1, 1, 6, 0, 4};  // really 3
  EXPECT_EQ(kiln_non_max_suppression(&p, kBoxes, kScores, &max_out, &iou, &score, y, scratch), KILN_ERR_BAD_ARGUMENT);
  p.count = 2;
  EXPECT_EQ(kiln_non_max_suppression(&p, kBoxes, kScores, &max_out, &iou, &score, y, scratch), KILN_ERR_BAD_ARGUMENT);
  for (auto v : y) EXPECT_EQ(v, -9);
}
