// Unit tests of the indexing / data-movement kernels (Gather*, Scatter*, Slice, Pad,
// Split, OneHot, Trilu, strided transpose) on small hand-worked cases.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

extern "C" {
#include "kiln_kernels.h"
}

namespace {

TEST(Gather, NegativeIndicesAndRangeCheck) {
  const float x[] = {1, 2, 3, 4, 5, 6};  // [3, 2], axis 0
  const int64_t idx[] = {2, -3, 1};
  float y[6];
  kiln_gather_params_t p = {1, 3, 3, 2 * sizeof(float), 8};
  ASSERT_EQ(kiln_gather(&p, x, idx, y), KILN_OK);
  EXPECT_EQ(std::vector<float>(y, y + 6), (std::vector<float>{5, 6, 1, 2, 3, 4}));
  const int64_t bad[] = {0, 3, 0};
  EXPECT_EQ(kiln_gather(&p, x, bad, y), KILN_ERR_BAD_ARGUMENT);
}

TEST(GatherElements, AlongAxis1) {
  const int32_t x[] = {1, 2, 3, 4};  // [2, 2]
  const int32_t idx[] = {0, 0, 1, 0};
  int32_t y[4];
  kiln_gather_elements_params_t p = {};
  p.ndim = 2, p.axis = 1, p.elem_size = 4, p.index_size = 4, p.axis_len = 2, p.data_count = 4;
  p.idx_shape[0] = 2, p.idx_shape[1] = 2, p.data_stride[0] = 2, p.data_stride[1] = 1;
  ASSERT_EQ(kiln_gather_elements(&p, x, idx, y), KILN_OK);
  EXPECT_EQ(std::vector<int32_t>(y, y + 4), (std::vector<int32_t>{1, 1, 4, 3}));
}

TEST(ScatterElements, DuplicateIndicesAdd) {
  const float data[] = {1, 2, 3, 4, 5};  // [1, 5], axis 1
  const int64_t idx[] = {1, 1};
  const float upd[] = {1.1f, 2.1f};
  float y[5];
  kiln_gather_elements_params_t p = {};
  p.ndim = 2, p.axis = 1, p.elem_size = 4, p.index_size = 8, p.axis_len = 5, p.data_count = 5;
  p.idx_shape[0] = 1, p.idx_shape[1] = 2, p.data_stride[0] = 5, p.data_stride[1] = 1;
  p.reduction = KILN_SCATTER_ADD;
  ASSERT_EQ(kiln_scatter_elements_f32(&p, data, idx, upd, y), KILN_OK);
  EXPECT_FLOAT_EQ(y[1], 2.0f + 1.1f + 2.1f);
  EXPECT_FLOAT_EQ(y[0], 1.0f);
  EXPECT_FLOAT_EQ(y[4], 5.0f);
}

TEST(GatherScatterND, SlicesByTuple) {
  const int32_t x[] = {0, 1, 2, 3, 4, 5, 6, 7};  // [2, 2, 2]
  const int64_t idx[] = {1, 0, 0, 1};             // two tuples of depth 2 -> rows of 2
  int32_t y[4];
  kiln_gather_nd_params_t p = {};
  p.batch = 1, p.tuples = 2, p.k = 2, p.slice_bytes = 8, p.batch_bytes = 32, p.index_size = 8;
  p.dims[0] = 2, p.dims[1] = 2, p.strides[0] = 2, p.strides[1] = 1;
  p.elem_size = 4, p.data_count = 8;
  ASSERT_EQ(kiln_gather_nd(&p, x, idx, y), KILN_OK);
  EXPECT_EQ(std::vector<int32_t>(y, y + 4), (std::vector<int32_t>{4, 5, 2, 3}));
  int32_t out[8];
  const int32_t upd[] = {10, 20, 30, 40};
  p.reduction = KILN_SCATTER_MUL;
  ASSERT_EQ(kiln_scatter_nd_i32(&p, x, idx, upd, out), KILN_OK);
  EXPECT_EQ(std::vector<int32_t>(out, out + 8), (std::vector<int32_t>{0, 1, 60, 120, 40, 100, 6, 7}));
}

TEST(Slice, RuntimeNegativeStepAndClamping) {
  const float x[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};  // [3, 4]
  const int64_t starts[] = {-1, 100}, ends[] = {INT64_MIN, -100}, axes[] = {1, 0}, steps[] = {-2, -1};
  // axis 1: from 3 down past 0 step -2 -> {3, 1}; axis 0: from 2 down to 0 -> {2, 1, 0}
  float y[6];
  kiln_slice_params_t p = {};
  p.ndim = 2, p.elem_size = 4, p.index_size = 8, p.num = 2;
  p.in_shape[0] = 3, p.in_shape[1] = 4, p.out_shape[0] = 3, p.out_shape[1] = 2;
  ASSERT_EQ(kiln_slice(&p, x, starts, ends, axes, steps, y), KILN_OK);
  EXPECT_EQ(std::vector<float>(y, y + 6), (std::vector<float>{11, 9, 7, 5, 3, 1}));
  p.out_shape[1] = 3;
  EXPECT_EQ(kiln_slice(&p, x, starts, ends, axes, steps, y), KILN_ERR_BAD_ARGUMENT);
}

TEST(Pad, ReflectEdgeConstantAndCrop) {
  const int32_t x[] = {1, 2, 3};  // [1, 3]
  int32_t y[7];
  kiln_pad_params_t p = {};
  p.ndim = 2, p.elem_size = 4, p.mode = KILN_PAD_REFLECT;
  p.in_shape[0] = 1, p.in_shape[1] = 3, p.out_shape[0] = 1, p.out_shape[1] = 7;
  p.pads[1] = 2, p.pads[3] = 2;
  ASSERT_EQ(kiln_pad(&p, x, nullptr, nullptr, y), KILN_OK);
  EXPECT_EQ(std::vector<int32_t>(y, y + 7), (std::vector<int32_t>{3, 2, 1, 2, 3, 2, 1}));
  p.mode = KILN_PAD_EDGE;
  ASSERT_EQ(kiln_pad(&p, x, nullptr, nullptr, y), KILN_OK);
  EXPECT_EQ(std::vector<int32_t>(y, y + 7), (std::vector<int32_t>{1, 1, 1, 2, 3, 3, 3}));
  p.mode = KILN_PAD_CONSTANT;
  const int32_t nine = 9;
  const int64_t pads[] = {0, 1, 0, -1};  // runtime pads: one before, crop one after
  p.out_shape[1] = 3;
  ASSERT_EQ(kiln_pad(&p, x, pads, &nine, y), KILN_OK);
  EXPECT_EQ(std::vector<int32_t>(y, y + 3), (std::vector<int32_t>{9, 1, 2}));
}

TEST(Split, ChunksPerOuterRow) {
  const uint8_t x[] = {1, 2, 3, 4, 5, 6};  // [2, 3] split 1 + 2 along axis 1
  uint8_t a[2], b[4];
  void* outs[] = {a, b};
  kiln_split_params_t p = {};
  p.num_outputs = 2, p.outer = 2, p.chunk_bytes[0] = 1, p.chunk_bytes[1] = 2;
  ASSERT_EQ(kiln_split(&p, x, outs), KILN_OK);
  EXPECT_EQ(std::vector<uint8_t>(a, a + 2), (std::vector<uint8_t>{1, 4}));
  EXPECT_EQ(std::vector<uint8_t>(b, b + 4), (std::vector<uint8_t>{2, 3, 5, 6}));
}

TEST(OneHot, FloatAndNegativeIndices) {
  const float idx[] = {1.9f, -1.0f, 7.0f};
  const int32_t values[] = {0, 5};
  int32_t y[9];
  kiln_onehot_params_t p = {3, 3, 1, 4, KILN_INDEX_F32};  // axis last: [3, depth 3]
  p.outer = 3, p.depth = 3, p.inner = 1;
  ASSERT_EQ(kiln_onehot(&p, idx, values, y), KILN_OK);
  EXPECT_EQ(std::vector<int32_t>(y, y + 9), (std::vector<int32_t>{0, 5, 0, 0, 0, 5, 0, 0, 0}));
}

TEST(Trilu, UpperAndLowerWithRuntimeK) {
  const int64_t x[] = {1, 2, 3, 4, 5, 6};  // [2, 3]
  int64_t y[6];
  kiln_trilu_params_t p = {1, 2, 3, 8, 1, 0};
  ASSERT_EQ(kiln_trilu(&p, x, nullptr, y), KILN_OK);
  EXPECT_EQ(std::vector<int64_t>(y, y + 6), (std::vector<int64_t>{1, 2, 3, 0, 5, 6}));
  p.upper = 0;
  const int64_t k = -1;
  ASSERT_EQ(kiln_trilu(&p, x, &k, y), KILN_OK);
  EXPECT_EQ(std::vector<int64_t>(y, y + 6), (std::vector<int64_t>{0, 0, 0, 4, 0, 0}));
}

TEST(Transpose, NegativeAndZeroStrides) {
  // Reversed rows, each read twice (a zero stride), from a pointer at the last row.
  const uint16_t x[] = {1, 2, 3, 4, 5, 6};  // [3, 2]
  uint16_t y[12];
  kiln_transpose_params_t p = {};
  p.ndim = 3, p.elem_size = 2;
  p.shape[0] = 3, p.shape[1] = 2, p.shape[2] = 2;
  p.in_stride[0] = -2, p.in_stride[1] = 0, p.in_stride[2] = 1;
  ASSERT_EQ(kiln_transpose(&p, x + 4, y), KILN_OK);
  EXPECT_EQ(std::vector<uint16_t>(y, y + 12), (std::vector<uint16_t>{5, 6, 5, 6, 3, 4, 3, 4, 1, 2, 1, 2}));
}

TEST(Generate, FillAndRange) {
  kiln_fill_params_t f = {};
  f.count = 3, f.elem_size = 8;
  const int64_t seven = 7;
  std::memcpy(f.value, &seven, 8);
  int64_t y[3] = {0, 0, 0};
  ASSERT_EQ(kiln_fill(&f, y), KILN_OK);
  EXPECT_EQ(std::vector<int64_t>(y, y + 3), (std::vector<int64_t>{7, 7, 7}));
  const int32_t start = 10, limit = 4, delta = -3;
  int32_t r[2];
  kiln_range_params_t p = {2};
  ASSERT_EQ(kiln_range_i32(&p, &start, &limit, &delta, r), KILN_OK);
  EXPECT_EQ(std::vector<int32_t>(r, r + 2), (std::vector<int32_t>{10, 7}));
  p.count = 3;  // the runtime scalars give 2 elements, not the planned 3
  EXPECT_EQ(kiln_range_i32(&p, &start, &limit, &delta, r), KILN_ERR_BAD_ARGUMENT);
}

}  // namespace
