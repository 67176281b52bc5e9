// Kernel tests for sequence.h: the run-time sequence table (build, insert, erase,
// at, materialize), ONNX positions incl. negative ones, out-of-range positions,
// int32 and int64 positions, in-place and out-of-place updates.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

extern "C" {
#include "kiln_kernels.h"
}

namespace {

// Elements are 2 floats; element k holds {k, k + 0.5}.
struct Seq {
  explicit Seq(uint32_t capacity) : p{capacity, 2 * sizeof(float), 0}, bytes(KILN_SEQ_BYTES(capacity, 2 * sizeof(float))) {}
  kiln_seq_params_t p;
  std::vector<uint8_t> bytes;
  uint32_t count() const { return kiln_seq_load_u32(bytes.data(), 0); }
  // The first float of every element, in sequence order.
  std::vector<float> firsts() {
    std::vector<float> out(count() * 2);
    std::vector<void*> ptrs;
    for (uint32_t i = 0; i < count(); ++i) ptrs.push_back(&out[2 * i]);
    EXPECT_EQ(kiln_seq_materialize(&p, bytes.data(), ptrs.data(), count()), KILN_OK);
    std::vector<float> f;
    for (uint32_t i = 0; i < count(); ++i) f.push_back(out[2 * i]);
    return f;
  }
};

std::vector<float> elem(float k) { return {k, k + 0.5f}; }

Seq built(uint32_t capacity, std::vector<float> ks) {
  Seq s(capacity);
  std::vector<std::vector<float>> es;
  for (float k : ks) es.push_back(elem(k));
  std::vector<const void*> ptrs;
  for (auto& e : es) ptrs.push_back(e.data());
  EXPECT_EQ(kiln_seq_build(&s.p, ptrs.empty() ? nullptr : ptrs.data(), uint32_t(ptrs.size()), s.bytes.data()), KILN_OK);
  return s;
}

}  // namespace

TEST(Sequence, LayoutMacros) {
  EXPECT_EQ(KILN_SEQ_SLOTS_OFFSET(1), 8u);
  EXPECT_EQ(KILN_SEQ_SLOTS_OFFSET(2), 16u);  // 4 + 8 = 12 -> 16
  EXPECT_EQ(KILN_SEQ_BYTES(3, 10), 16u + 30u);
}

TEST(Sequence, BuildAndMaterialize) {
  Seq s = built(4, {0, 1, 2});
  EXPECT_EQ(s.count(), 3u);
  EXPECT_EQ(s.firsts(), (std::vector<float>{0, 1, 2}));
  Seq e = built(1, {});
  EXPECT_EQ(e.count(), 0u);
  EXPECT_EQ(kiln_seq_materialize(&e.p, e.bytes.data(), nullptr, 0), KILN_OK);
  // More elements than slots.
  Seq small(1);
  std::vector<float> a = elem(0), b = elem(1);
  const void* two[2] = {a.data(), b.data()};
  EXPECT_EQ(kiln_seq_build(&small.p, two, 2, small.bytes.data()), KILN_ERR_BAD_ARGUMENT);
  EXPECT_EQ(kiln_seq_build(nullptr, two, 2, small.bytes.data()), KILN_ERR_NULL_POINTER);
}

TEST(Sequence, MaterializeChecksTheCount) {
  Seq s = built(3, {0, 1});
  float o[3][2];
  void* outs[3] = {o[0], o[1], o[2]};
  EXPECT_EQ(kiln_seq_materialize(&s.p, s.bytes.data(), outs, 3), KILN_ERR_BAD_ARGUMENT);
  EXPECT_EQ(kiln_seq_materialize(&s.p, s.bytes.data(), outs, 2), KILN_OK);
  EXPECT_FLOAT_EQ(o[1][1], 1.5f);
}

TEST(Sequence, InsertAtEveryPositionInPlace) {
  // n = 2: valid insert positions are -2..2 (-k is n - k, n itself is the back).
  const int64_t positions[] = {0, 1, 2, -1, -2};
  const std::vector<float> expect[] = {{9, 0, 1}, {0, 9, 1}, {0, 1, 9}, {0, 9, 1}, {9, 0, 1}};
  for (size_t i = 0; i < 5; ++i) {
    Seq s = built(3, {0, 1});
    s.p.slot = 2;
    std::vector<float> e = elem(9);
    ASSERT_EQ(kiln_seq_insert(&s.p, s.bytes.data(), e.data(), &positions[i], 8, s.bytes.data()), KILN_OK);
    EXPECT_EQ(s.firsts(), expect[i]) << "position " << positions[i];
  }
}

TEST(Sequence, InsertDefaultsToTheBackAndCopiesOutOfPlace) {
  Seq s = built(3, {0, 1});
  Seq out(3);
  s.p.slot = 2;
  std::vector<float> e = elem(7);
  ASSERT_EQ(kiln_seq_insert(&s.p, s.bytes.data(), e.data(), nullptr, 0, out.bytes.data()), KILN_OK);
  EXPECT_EQ(out.firsts(), (std::vector<float>{0, 1, 7}));
  EXPECT_EQ(s.firsts(), (std::vector<float>{0, 1}));  // the input is unchanged
  e[0] = 100;  // the element was copied in
  EXPECT_EQ(out.firsts(), (std::vector<float>{0, 1, 7}));
  const int32_t front = -2;
  ASSERT_EQ(kiln_seq_insert(&s.p, s.bytes.data(), e.data(), &front, 4, out.bytes.data()), KILN_OK);
  EXPECT_EQ(out.firsts(), (std::vector<float>{100, 0, 1}));
}

TEST(Sequence, InsertRejectsBadPositionsAndFullTables) {
  Seq s = built(3, {0, 1});
  s.p.slot = 2;
  std::vector<float> e = elem(9);
  for (int64_t p : {int64_t(3), int64_t(-3), int64_t(1) << 40}) {
    EXPECT_EQ(kiln_seq_insert(&s.p, s.bytes.data(), e.data(), &p, 8, s.bytes.data()), KILN_ERR_BAD_ARGUMENT) << p;
    EXPECT_EQ(s.count(), 2u) << "unchanged after an error";
  }
  const int64_t zero = 0;
  EXPECT_EQ(kiln_seq_insert(&s.p, s.bytes.data(), e.data(), &zero, 2, s.bytes.data()), KILN_ERR_BAD_ARGUMENT);
  s.p.slot = 1;  // still used by element 1
  EXPECT_EQ(kiln_seq_insert(&s.p, s.bytes.data(), e.data(), &zero, 8, s.bytes.data()), KILN_ERR_BAD_ARGUMENT);
  Seq full = built(2, {0, 1});
  full.p.slot = 1;
  EXPECT_EQ(kiln_seq_insert(&full.p, full.bytes.data(), e.data(), &zero, 8, full.bytes.data()), KILN_ERR_BAD_ARGUMENT);
  EXPECT_EQ(kiln_seq_insert(&s.p, nullptr, e.data(), &zero, 8, s.bytes.data()), KILN_ERR_NULL_POINTER);
}

TEST(Sequence, EraseAtEveryPosition) {
  const int64_t positions[] = {0, 1, 2, -1, -2, -3};
  const std::vector<float> expect[] = {{1, 2}, {0, 2}, {0, 1}, {0, 1}, {0, 2}, {1, 2}};
  for (size_t i = 0; i < 6; ++i) {
    Seq s = built(3, {0, 1, 2});
    ASSERT_EQ(kiln_seq_erase(&s.p, s.bytes.data(), &positions[i], 8, s.bytes.data()), KILN_OK);
    EXPECT_EQ(s.firsts(), expect[i]) << "position " << positions[i];
  }
  Seq s = built(3, {0, 1, 2});
  Seq out(3);
  ASSERT_EQ(kiln_seq_erase(&s.p, s.bytes.data(), nullptr, 0, out.bytes.data()), KILN_OK);  // the last
  EXPECT_EQ(out.firsts(), (std::vector<float>{0, 1}));
  EXPECT_EQ(s.firsts(), (std::vector<float>{0, 1, 2}));
}

TEST(Sequence, EraseRejectsBadPositions) {
  Seq s = built(3, {0, 1, 2});
  for (int32_t p : {3, -4, 100}) {
    EXPECT_EQ(kiln_seq_erase(&s.p, s.bytes.data(), &p, 4, s.bytes.data()), KILN_ERR_BAD_ARGUMENT) << p;
    EXPECT_EQ(s.count(), 3u);
  }
  Seq e = built(1, {});
  EXPECT_EQ(kiln_seq_erase(&e.p, e.bytes.data(), nullptr, 0, e.bytes.data()), KILN_ERR_BAD_ARGUMENT);
}

TEST(Sequence, AtCopiesTheElement) {
  Seq s = built(4, {0, 1, 2});
  s.p.slot = 3;
  std::vector<float> e = elem(5);
  const int64_t one = 1;
  ASSERT_EQ(kiln_seq_insert(&s.p, s.bytes.data(), e.data(), &one, 8, s.bytes.data()), KILN_OK);  // 0 5 1 2
  const int64_t positions[] = {0, 1, 3, -1, -3, -4};
  const float expect[] = {0, 5, 2, 2, 5, 0};
  for (size_t i = 0; i < 6; ++i) {
    float out[2] = {-1, -1};
    ASSERT_EQ(kiln_seq_at(&s.p, s.bytes.data(), &positions[i], 8, out), KILN_OK);
    EXPECT_FLOAT_EQ(out[0], expect[i]) << positions[i];
    EXPECT_FLOAT_EQ(out[1], expect[i] + 0.5f);
  }
  const int32_t neg = -2;
  float out[2];
  ASSERT_EQ(kiln_seq_at(&s.p, s.bytes.data(), &neg, 4, out), KILN_OK);
  EXPECT_FLOAT_EQ(out[0], 1);
  for (int64_t p : {int64_t(4), int64_t(-5)})
    EXPECT_EQ(kiln_seq_at(&s.p, s.bytes.data(), &p, 8, out), KILN_ERR_BAD_ARGUMENT) << p;
  EXPECT_EQ(kiln_seq_at(&s.p, s.bytes.data(), nullptr, 8, out), KILN_ERR_NULL_POINTER);
}

TEST(Sequence, CorruptTableIsRejected) {
  Seq s = built(2, {0, 1});
  kiln_seq_store_u32(s.bytes.data(), 4, 7);  // slot index out of range
  float out[2];
  const int64_t zero = 0;
  EXPECT_EQ(kiln_seq_at(&s.p, s.bytes.data(), &zero, 8, out), KILN_ERR_BAD_ARGUMENT);
  kiln_seq_store_u32(s.bytes.data(), 0, 9);  // count above the capacity
  EXPECT_EQ(kiln_seq_erase(&s.p, s.bytes.data(), &zero, 8, s.bytes.data()), KILN_ERR_BAD_ARGUMENT);
}
