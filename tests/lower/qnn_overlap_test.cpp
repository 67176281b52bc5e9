// The int8 partial-reuse rule (lower/ops/qnn_overlap.h) on the layer shapes of the
// MLPerf Tiny models, worked out by hand from the kernels' read order. (The rule
// against the kernels themselves, on every instruction-set path and random
// shapes: tests/crt/s8_qemu.)
#include <gtest/gtest.h>

#include "lower/ops/qnn_overlap.h"

namespace kiln {
namespace {

S8Window conv(int64_t h, int64_t w, int64_t cin, int64_t oh, int64_t ow, int64_t cout, int64_t k, int64_t s,
              int64_t pad) {
  S8Window g;
  g.in_h = h, g.in_w = w, g.in_c = cin, g.out_h = oh, g.out_w = ow, g.out_c = cout;
  g.kernel_h = g.kernel_w = k, g.stride_h = g.stride_w = s, g.pad_top = g.pad_left = pad;
  return g;
}

TEST(S8OverlapRule, PointwiseWithEqualChannelsRunsInPlace) {
  // Pixel p is widened before it is written; pixel p + 1 is read after.
  EXPECT_EQ(s8_overlap_limit(conv(25, 5, 64, 25, 5, 64, 1, 1, 0), 1, false), 0);
}

TEST(S8OverlapRule, ExpandingPointwiseEndsWhereItsInputEnds) {
  // 8 -> 16 channels over 48x48: pixel p's outputs end at (p + 1) * 16 + delta,
  // which must stay at or below (p + 1) * 8, the next pixel's input, for every
  // pixel but the last (nothing is read after it): delta <= -2303 * 8.
  EXPECT_EQ(s8_overlap_limit(conv(48, 48, 8, 48, 48, 16, 1, 1, 0), 1, false), -(48 * 48 - 1) * 8);
}

TEST(S8OverlapRule, ShrinkingPointwiseMayStartAboveItsInput) {
  EXPECT_EQ(s8_overlap_limit(conv(4, 4, 32, 4, 4, 16, 1, 1, 0), 1, false), 16);
}

TEST(S8OverlapRule, SameSizeThreeByThreeStaysARowAndAPixelBelow) {
  // The next pixel's window starts one row up and one column left of it: the
  // output must start in_w + 1 pixels below the input.
  EXPECT_EQ(s8_overlap_limit(conv(25, 5, 64, 25, 5, 64, 3, 1, 1), 1, false), -6 * 64);
}

TEST(S8OverlapRule, StrideTwoThreeByThreeRunsInPlace) {
  // Output pixel 0 ends at 16 bytes; the next window starts at input pixel 1.
  EXPECT_EQ(s8_overlap_limit(conv(48, 48, 16, 24, 24, 16, 3, 2, 1), 1, false), 0);
}

TEST(S8OverlapRule, ReadingWhileWritingKeepsTheOutputBelowTheStepsOwnWindow) {
  // The int8-weight pointwise form on MVE reads pixels p, p + 1 in place while
  // writing them: the output must end below pixel p's input.
  EXPECT_EQ(s8_overlap_limit(conv(4, 4, 16, 4, 4, 16, 1, 1, 0), 2, true), -32);
}

TEST(S8OverlapRule, OneRowIsReadWholeBeforeAnyOutput) {
  S8Window fc;
  fc.in_c = 640, fc.out_c = 128;  // one row: nothing is read after a write
  EXPECT_GT(s8_overlap_limit(fc, 1, false), int64_t(1) << 40);
  EXPECT_EQ(s8_overlap_limit(fc, 2, true), -128);
}

TEST(S8OverlapRule, DeclaresTheRuleOnTheCallWithItsScratch) {
  KernelCall k;
  k.scratch.push_back({"im2col", 256, 8});
  add_s8_overlap(k, 8000, -384, 64);
  ASSERT_EQ(k.overlaps.size(), 1u);
  EXPECT_EQ(k.overlaps[0].granule, 64);
  EXPECT_EQ(k.overlaps[0].max_m, -6);
  EXPECT_EQ(k.overlaps[0].min_m, -8000 / 64 - 1);
  EXPECT_EQ(k.overlaps[0].scratch.size(), 1u);
  KernelCall none;
  add_s8_overlap(none, 8000, kS8NoOverlapLimit, 16);
  EXPECT_TRUE(none.overlaps.empty());
}

}  // namespace
}  // namespace kiln
