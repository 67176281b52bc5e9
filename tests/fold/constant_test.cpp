// Constant storage, views, lazy transforms, wide precision and the pool's GC.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "fold/constant_pool.h"
#include "ir/constant.h"
#include "ir/graph.h"

namespace kiln {
namespace {

ConstantPtr iota_f32(std::vector<int64_t> shape) {
  std::vector<float> v(size_t(shape_elements(shape)));
  for (size_t i = 0; i < v.size(); ++i) v[i] = float(i);
  return Constant::from_floats(std::move(shape), v);
}

TEST(ConstantStorage, SliceOfABufferSharesItsBytes) {
  std::vector<uint8_t> bytes(64);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = uint8_t(i);
  auto whole = ConstantBuffer::owned(bytes);
  auto part = ConstantBuffer::slice(whole, 16, 32, ConstantBuffer::Origin::ModelData);
  auto c = Constant::from_buffer(DType::Float32, {8}, part);
  EXPECT_EQ(c->data(), whole->data() + 16);  // zero copy
  EXPECT_TRUE(c->is_plain());
  EXPECT_EQ(c->buffer()->origin(), ConstantBuffer::Origin::ModelData);
  EXPECT_THROW(ConstantBuffer::slice(whole, 40, 32, ConstantBuffer::Origin::ModelData), std::out_of_range);
}

TEST(ConstantStorage, MappedFileSliceReadsTheFile) {
  auto path = std::filesystem::temp_directory_path() / ("kiln_fold_map_" + std::to_string(::getpid()) + ".bin");
  std::vector<int32_t> v = {7, -3, 11, 5000, 42};
  {
    std::ofstream f(path, std::ios::binary);
    f.write("HEAD", 4);
    f.write(reinterpret_cast<const char*>(v.data()), std::streamsize(v.size() * 4));
  }
  {
    auto map = ConstantBuffer::map_file(path);
    EXPECT_EQ(map->origin(), ConstantBuffer::Origin::MappedFile);
    auto c = Constant::from_buffer(DType::Int32, {5}, ConstantBuffer::slice(map, 4, 20, ConstantBuffer::Origin::MappedFile));
    EXPECT_EQ(c->to_int64s(), (std::vector<int64_t>{7, -3, 11, 5000, 42}));
    EXPECT_EQ(c->data(), map->data() + 4);
  }
  std::filesystem::remove(path);
}

TEST(ConstantViews, TransposeIsAStrideViewWithTheRightValues) {
  auto c = iota_f32({2, 3, 4});
  auto t = c->transposed({2, 0, 1});
  EXPECT_EQ(t->buffer(), c->buffer());
  EXPECT_EQ(t->shape(), (std::vector<int64_t>{4, 2, 3}));
  EXPECT_FALSE(t->is_plain());
  auto v = t->to_doubles();
  // t[i][j][k] = c[j][k][i] = 12j + 4k + i
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 2; ++j)
      for (int k = 0; k < 3; ++k) EXPECT_EQ(v[size_t(i * 6 + j * 3 + k)], 12 * j + 4 * k + i);
}

TEST(ConstantViews, BroadcastAndSplatUseNoStorage) {
  auto row = Constant::from_floats({1, 3}, {1, 2, 3});
  auto b = row->broadcast_to({4, 2, 3});
  EXPECT_EQ(b->buffer(), row->buffer());
  EXPECT_EQ(b->strides(), (std::vector<int64_t>{0, 0, 1}));
  auto v = b->to_doubles();
  for (size_t i = 0; i < v.size(); ++i) EXPECT_EQ(v[i], double(i % 3 + 1));
  WideNum w;
  w.f = 2.5;
  auto s = Constant::splat(DType::Float32, {1000, 1000}, w);
  EXPECT_EQ(s->buffer()->size(), 8u);
  EXPECT_TRUE(s->is_splat());
  EXPECT_EQ(s->as_double(999999), 2.5);
  EXPECT_THROW(row->broadcast_to({2, 2}), std::logic_error);
}

TEST(ConstantViews, ReshapeIsAViewWhenStridesAllowElseACopy) {
  auto c = iota_f32({2, 3, 4});
  auto r = c->reshaped({6, 4});
  EXPECT_EQ(r->buffer(), c->buffer());
  // Splitting a dimension of a transposed view is still a view.
  auto t = c->transposed({1, 0, 2});  // [3,2,4]
  auto split = t->reshaped({3, 2, 2, 2});
  EXPECT_EQ(split->buffer(), c->buffer());
  // Merging non-contiguous dims needs a copy; values must still be row-major of t.
  auto merged = t->reshaped({6, 4});
  EXPECT_NE(merged->buffer(), c->buffer());
  EXPECT_EQ(merged->to_doubles(), t->to_doubles());
  EXPECT_EQ(split->to_doubles(), t->to_doubles());
}

TEST(ConstantViews, SliceWithNegativeStep) {
  auto c = iota_f32({5});
  auto s = c->sliced({4}, {-2}, {3});
  EXPECT_EQ(s->to_doubles(), (std::vector<double>{4, 2, 0}));
  EXPECT_EQ(s->buffer(), c->buffer());
}

TEST(ConstantTransforms, LazyCastNegateAndBinaryAreComposedAndReadInBulk) {
  auto c = Constant::from_floats({4}, {1.5f, -2.7f, 3.2f, -0.4f});
  auto neg = c->mapped(DType::Float32, [](WideNum* d, int64_t n) {
    for (int64_t i = 0; i < n; ++i) d[i].f = -d[i].f;
  }, "neg");
  auto i32 = neg->cast_to(DType::Int32);
  EXPECT_EQ(i32->buffer(), c->buffer());  // nothing materialized
  EXPECT_EQ(i32->transforms().size(), 2u);
  EXPECT_EQ(i32->to_int64s(), (std::vector<int64_t>{-1, 2, -3, 0}));  // truncation toward zero
  auto scale = Constant::from_floats({4}, {2, 3, 4, 5});
  auto prod = c->combined(scale, DType::Float32, [](WideNum* a, const WideNum* b, int64_t n) {
    for (int64_t i = 0; i < n; ++i) a[i].f *= b[i].f;
  }, "mul");
  EXPECT_TRUE(prod->has_positional_transform());
  EXPECT_EQ(prod->as_double(1), double(float(double(-2.7f) * 3)));
  // A view of a positional transform materializes first and stays correct.
  auto rev = prod->sliced({3}, {-1}, {4});
  EXPECT_EQ(rev->as_double(0), double(float(double(-0.4f) * 5)));
}

TEST(ConstantTransforms, FloatToIntCastSaturatesLikeTheKernel) {
  auto c = Constant::from_floats({4}, {300.7f, -300.2f, std::nanf(""), 1e20f});
  EXPECT_EQ(c->cast_to(DType::Int8)->to_int64s(), (std::vector<int64_t>{127, -128, 0, 127}));
  EXPECT_EQ(c->cast_to(DType::UInt8)->to_int64s(), (std::vector<int64_t>{255, 0, 0, 255}));
  EXPECT_EQ(c->cast_to(DType::Int32)->to_int64s(), (std::vector<int64_t>{300, -300, 0, 2147483647}));
}

TEST(ConstantTransforms, IntegersWrapAtEveryStep) {
  auto c = Constant::from_bytes(DType::Int8, {2}, {100, 200});  // 100, -56
  auto doubled = c->mapped(DType::Int8, [](WideNum* d, int64_t n) {
    for (int64_t i = 0; i < n; ++i) d[i].i *= 2;
  }, "x2");
  EXPECT_EQ(doubled->to_int64s(), (std::vector<int64_t>{-56, -112}));  // int8(200), int8(-112)
}

TEST(ConstantPrecision, FloatsStayDoubleUntilEmission) {
  // (1 + 1e8) - 1e8 rounds to 0 in float32 step by step, 1 in double.
  WideNum big;
  big.f = double(1e8f);
  auto one = Constant::from_floats({1}, {1.0f});
  auto s = one->combined(Constant::splat(DType::Float32, {}, big), DType::Float32, [](WideNum* a, const WideNum* b, int64_t n) {
    for (int64_t i = 0; i < n; ++i) a[i].f += b[i].f;
  }, "add");
  auto d = s->combined(Constant::splat(DType::Float32, {}, big), DType::Float32, [](WideNum* a, const WideNum* b, int64_t n) {
    for (int64_t i = 0; i < n; ++i) a[i].f -= b[i].f;
  }, "sub");
  EXPECT_EQ(d->as_double(0), 1.0);
  float emitted;
  std::memcpy(&emitted, d->data(), 4);
  EXPECT_EQ(emitted, 1.0f);
}

TEST(ConstantPrecision, HalfRoundsOnceFromDouble) {
  // 1 + 2^-11 + 2^-30 is just above the half-way point between two halves: one
  // rounding gives 1 + 2^-10; double -> float -> half would give 1 (ties to even).
  double x = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -30);
  EXPECT_EQ(double_to_half(x), 0x3c01);
  EXPECT_EQ(double_to_half(1.0), 0x3c00);
  EXPECT_EQ(double_to_half(65520.0), 0x7c00);  // overflows to inf
  EXPECT_EQ(double_to_half(-std::ldexp(1.0, -24)), 0x8001);
  EXPECT_EQ(double_to_bfloat16(1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40)), 0x3f81);
}

TEST(ConstantPool, CollectReleasesUnreachableConstants) {
  for (bool gc : {true, false}) {
    Graph g;
    ConstantPool pool(gc);
    Value* keep = g.add_value("keep", DType::Float32, {1000});
    keep->constant = pool.track(iota_f32({1000})->materialized());
    keep->is_graph_output = true;
    g.outputs.push_back(keep);
    Value* dead = g.add_value("dead", DType::Float32, {1000});
    dead->constant = pool.track(iota_f32({1000})->materialized());
    std::weak_ptr<const Constant> watch = dead->constant;
    EXPECT_EQ(pool.live_bytes(), 16000u);
    pool.collect(g);
    EXPECT_EQ(watch.expired(), gc);
    EXPECT_EQ(pool.live_bytes(), gc ? 8000u : 16000u);
    EXPECT_EQ(pool.stats().peak_live_bytes, 16000u);
  }
}

}  // namespace
}  // namespace kiln
