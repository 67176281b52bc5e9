// Element-wise kernels: the cases where C itself would be undefined or where the
// ONNX/numpy semantics differ from a naive C expression (integer wrap-around,
// division by zero, INT_MIN / -1, Python-style modulo, out-of-range float->int
// casts, float16 rounding, NaN propagation, round-half-to-even) and broadcasting.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "kiln_kernels.h"

namespace {

// A kiln_broadcast_t for out[rows, cols] = a[rows or 1, cols or 1] (op) b[...].
kiln_broadcast_t bcast2(int32_t rows, int32_t cols, bool a_rows, bool a_cols, bool b_rows, bool b_cols) {
  kiln_broadcast_t p{};
  p.ndim = 2;
  p.shape[0] = rows;
  p.shape[1] = cols;
  p.stride_a[1] = a_cols ? 1 : 0;
  p.stride_a[0] = a_rows ? (a_cols ? cols : 1) : 0;
  p.stride_b[1] = b_cols ? 1 : 0;
  p.stride_b[0] = b_rows ? (b_cols ? cols : 1) : 0;
  return p;
}

kiln_broadcast_t flat(int32_t n) {
  kiln_broadcast_t p{};
  p.ndim = 1;
  p.shape[0] = n;
  p.stride_a[0] = 1;
  p.stride_b[0] = 1;
  return p;
}

TEST(ElementwiseKernels, IntegerAddSubMulWrapLikeNumpy) {
  const int32_t a[3] = {INT32_MAX, INT32_MIN, -5};
  const int32_t b[3] = {1, 1, 7};
  int32_t out[3];
  kiln_broadcast_t p = flat(3);
  ASSERT_EQ(kiln_add_i32(&p, a, b, out), KILN_OK);
  EXPECT_EQ(out[0], INT32_MIN);
  EXPECT_EQ(out[1], INT32_MIN + 1);
  EXPECT_EQ(out[2], 2);
  ASSERT_EQ(kiln_sub_i32(&p, b, a, out), KILN_OK);
  EXPECT_EQ(out[0], INT32_MIN + 2);  // 1 - INT32_MAX
  EXPECT_EQ(out[1], INT32_MIN + 1);  // 1 - INT32_MIN wraps

  // uint16 * uint16 would promote to int and overflow in plain C.
  const uint16_t x[2] = {65535, 300}, y[2] = {65535, 300};
  uint16_t z[2];
  p = flat(2);
  ASSERT_EQ(kiln_mul_u16(&p, x, y, z), KILN_OK);
  EXPECT_EQ(z[0], 1);                        // (2^16 - 1)^2 mod 2^16
  EXPECT_EQ(z[1], uint16_t(90000 % 65536));  // 24464
  const int64_t big[1] = {INT64_MAX};
  int64_t r64[1];
  p = flat(1);
  ASSERT_EQ(kiln_mul_i64(&p, big, big, r64), KILN_OK);
  EXPECT_EQ(r64[0], 1);  // (2^63 - 1)^2 mod 2^64
}

TEST(ElementwiseKernels, IntegerDivisionTruncatesAndNeverTraps) {
  const int32_t a[5] = {-7, 7, INT32_MIN, 5, -9};
  const int32_t b[5] = {2, -2, -1, 0, 3};
  int32_t out[5];
  kiln_broadcast_t p = flat(5);
  ASSERT_EQ(kiln_div_i32(&p, a, b, out), KILN_OK);
  EXPECT_EQ(out[0], -3);
  EXPECT_EQ(out[1], -3);
  EXPECT_EQ(out[2], INT32_MIN);  // overflow wraps instead of trapping
  EXPECT_EQ(out[3], 0);          // division by zero gives 0
  EXPECT_EQ(out[4], -3);
  const uint8_t ua[2] = {200, 9}, ub[2] = {0, 4};
  uint8_t uo[2];
  p = flat(2);
  ASSERT_EQ(kiln_div_u8(&p, ua, ub, uo), KILN_OK);
  EXPECT_EQ(uo[0], 0);
  EXPECT_EQ(uo[1], 2);
}

TEST(ElementwiseKernels, ModFollowsDivisorSignAndFmodDividendSign) {
  const int8_t a[5] = {-7, 7, -7, INT8_MIN, 5};
  const int8_t b[5] = {3, -3, -3, -1, 0};
  int8_t mod[5], fmod[5];
  kiln_broadcast_t p = flat(5);
  ASSERT_EQ(kiln_mod_i8(&p, a, b, mod), KILN_OK);
  ASSERT_EQ(kiln_fmod_i8(&p, a, b, fmod), KILN_OK);
  const int8_t want_mod[5] = {2, -2, -1, 0, 0}, want_fmod[5] = {-1, 1, -1, 0, 0};
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(mod[i], want_mod[i]) << i;
    EXPECT_EQ(fmod[i], want_fmod[i]) << i;
  }
  const double fa[2] = {-7.5, 7.5}, fb[2] = {2.0, -2.0};
  double fm[2];
  p = flat(2);
  ASSERT_EQ(kiln_mod_f64(&p, fa, fb, fm), KILN_OK);
  EXPECT_DOUBLE_EQ(fm[0], 0.5);
  EXPECT_DOUBLE_EQ(fm[1], -0.5);
  ASSERT_EQ(kiln_fmod_f64(&p, fa, fb, fm), KILN_OK);
  EXPECT_DOUBLE_EQ(fm[0], -1.5);
  EXPECT_DOUBLE_EQ(fm[1], 1.5);
}

TEST(ElementwiseKernels, BinaryBroadcastsRowsAndColumns) {
  // [2,1] - [1,3] -> [2,3]
  const float col[2] = {10, 20}, row[3] = {1, 2, 3};
  float out[6];
  kiln_broadcast_t p = bcast2(2, 3, true, false, false, true);
  ASSERT_EQ(kiln_sub_f32(&p, col, row, out), KILN_OK);
  const float want[6] = {9, 8, 7, 19, 18, 17};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(out[i], want[i]) << i;
  // Comparisons write bool bytes; NaN compares false.
  const float a[3] = {1, NAN, 3}, b[1] = {2};
  uint8_t lt[3], eq[3];
  kiln_broadcast_t q = bcast2(1, 3, false, true, false, false);
  ASSERT_EQ(kiln_less_f32(&q, a, b, lt), KILN_OK);
  EXPECT_EQ(lt[0], 1);
  EXPECT_EQ(lt[1], 0);
  EXPECT_EQ(lt[2], 0);
  ASSERT_EQ(kiln_equal_f32(&q, a, a, eq), KILN_OK);  // each a[i] against a[0] (b is broadcast)
  EXPECT_EQ(eq[0], 1);
  EXPECT_EQ(eq[1], 0);  // NaN != 1
  EXPECT_EQ(eq[2], 0);
}

TEST(ElementwiseKernels, VariadicMaxBroadcastsAndPropagatesNaN) {
  // Max of x[2,2], y[2] (row), z[1]: three inputs, N-way broadcasting.
  const float x[4] = {1, 5, NAN, -1}, y[2] = {3, 0}, z[1] = {2};
  const int32_t strides[6] = {2, 1, /* y */ 0, 1, /* z */ 0, 0};
  kiln_broadcast_n_t p{};
  p.ndim = 2;
  p.num_inputs = 3;
  p.shape[0] = 2;
  p.shape[1] = 2;
  p.strides = strides;
  const void* const in[3] = {x, y, z};
  float out[4];
  ASSERT_EQ(kiln_max_f32(&p, in, out), KILN_OK);
  EXPECT_EQ(out[0], 3);
  EXPECT_EQ(out[1], 5);
  EXPECT_TRUE(std::isnan(out[2]));
  EXPECT_EQ(out[3], 2);
  ASSERT_EQ(kiln_mean_f32(&p, in, out), KILN_OK);
  EXPECT_FLOAT_EQ(out[0], 2.0f);
  EXPECT_FLOAT_EQ(out[3], 1.0f / 3.0f);
  // In place: out aliases x.
  float xi[4] = {1, 5, 0, -1};
  const void* const in2[3] = {xi, y, z};
  ASSERT_EQ(kiln_min_f32(&p, in2, xi), KILN_OK);
  EXPECT_EQ(xi[0], 1);
  EXPECT_EQ(xi[1], 0);
  EXPECT_EQ(xi[2], 0);
  EXPECT_EQ(xi[3], -1);
  p.num_inputs = 0;
  EXPECT_EQ(kiln_max_f32(&p, in, out), KILN_ERR_BAD_ARGUMENT);
}

TEST(ElementwiseKernels, WhereBroadcastsThreeWays) {
  const uint8_t cond[2] = {1, 0};            // [2,1]
  const int64_t x[3] = {1, 2, 3}, y[1] = {-9};  // [3], scalar
  const int32_t strides[6] = {1, 0, /* x */ 0, 1, /* y */ 0, 0};
  kiln_broadcast_n_t p{};
  p.ndim = 2;
  p.num_inputs = 3;
  p.shape[0] = 2;
  p.shape[1] = 3;
  p.strides = strides;
  int64_t out[6];
  ASSERT_EQ(kiln_where_i64(&p, cond, x, y, out), KILN_OK);
  const int64_t want[6] = {1, 2, 3, -9, -9, -9};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(out[i], want[i]) << i;
}

TEST(ElementwiseKernels, FloatToIntCastSaturatesAndMapsNaNToZero) {
  const float in[7] = {300.7f, -1e10f, NAN, -3.9f, 3.9f, INFINITY, -128.0f};
  int8_t i8[7];
  ASSERT_EQ(kiln_cast_f32_i8(in, i8, 7), KILN_OK);
  const int8_t want8[7] = {127, -128, 0, -3, 3, 127, -128};
  for (int i = 0; i < 7; ++i) EXPECT_EQ(i8[i], want8[i]) << i;
  uint8_t u8[7];
  ASSERT_EQ(kiln_cast_f32_u8(in, u8, 7), KILN_OK);
  const uint8_t wantu8[7] = {255, 0, 0, 0, 3, 255, 0};
  for (int i = 0; i < 7; ++i) EXPECT_EQ(u8[i], wantu8[i]) << i;
  const double d[3] = {9.3e18, -9.3e18, 1e300};
  int64_t i64[3];
  ASSERT_EQ(kiln_cast_f64_i64(d, i64, 3), KILN_OK);
  EXPECT_EQ(i64[0], INT64_MAX);
  EXPECT_EQ(i64[1], INT64_MIN);
  EXPECT_EQ(i64[2], INT64_MAX);
  float f[3];
  ASSERT_EQ(kiln_cast_f64_f32(d, f, 3), KILN_OK);
  EXPECT_EQ(f[2], INFINITY);
  // Integer narrowing wraps; bool is != 0.
  const int32_t w[3] = {257, -1, 0};
  uint8_t wu[3], wb[3];
  ASSERT_EQ(kiln_cast_i32_u8(w, wu, 3), KILN_OK);
  EXPECT_EQ(wu[0], 1);
  EXPECT_EQ(wu[1], 255);
  ASSERT_EQ(kiln_cast_i32_b(w, wb, 3), KILN_OK);
  EXPECT_EQ(wb[0], 1);
  EXPECT_EQ(wb[1], 1);
  EXPECT_EQ(wb[2], 0);
}

TEST(ElementwiseKernels, Float16RoundsToNearestEven) {
  const float in[8] = {1.0f, 65504.0f, 65520.0f, 0x1p-24f, 0x1p-25f, 0x1.8p-25f, 1.0f + 0x1p-11f, NAN};
  uint16_t h[8];
  ASSERT_EQ(kiln_cast_f32_f16(in, h, 8), KILN_OK);
  EXPECT_EQ(h[0], 0x3C00);
  EXPECT_EQ(h[1], 0x7BFF);  // largest half
  EXPECT_EQ(h[2], 0x7C00);  // halfway to 2^16 rounds to inf
  EXPECT_EQ(h[3], 0x0001);  // smallest subnormal
  EXPECT_EQ(h[4], 0x0000);  // tie between 0 and 2^-24: even is 0
  EXPECT_EQ(h[5], 0x0001);  // above the tie
  EXPECT_EQ(h[6], 0x3C00);  // tie between 1 and 1 + 2^-10: even is 1
  EXPECT_EQ(h[7] & 0x7C00, 0x7C00);
  EXPECT_NE(h[7] & 0x03FF, 0);  // still NaN
  float back[8];
  ASSERT_EQ(kiln_cast_f16_f32(h, back, 8), KILN_OK);
  EXPECT_EQ(back[1], 65504.0f);
  EXPECT_EQ(back[3], 0x1p-24f);
  EXPECT_TRUE(std::isnan(back[7]));
  // float16 arithmetic is computed in float and rounded once.
  const uint16_t a[1] = {0x3C00}, b[1] = {0x3C00};  // 1 + 1
  uint16_t s[1];
  kiln_broadcast_t p = flat(1);
  ASSERT_EQ(kiln_add_f16(&p, a, b, s), KILN_OK);
  EXPECT_EQ(s[0], 0x4000);
}

TEST(ElementwiseKernels, RoundHalfToEvenAndSigmoidWithoutOverflow) {
  const float in[8] = {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 2.4999998f, -2.5f, 8388609.0f};
  float out[8];
  ASSERT_EQ(kiln_round_f32(in, out, 8), KILN_OK);
  const float want[8] = {0, 2, 2, -0.0f, -2, 2, -2, 8388609.0f};
  for (int i = 0; i < 8; ++i) EXPECT_EQ(out[i], want[i]) << i;
  const float s_in[3] = {-100.0f, 100.0f, 0.0f};
  float s_out[3];
  ASSERT_EQ(kiln_sigmoid_f32(s_in, s_out, 3), KILN_OK);
  EXPECT_GT(s_out[0], 0.0f);
  EXPECT_LT(s_out[0], 1e-40f);
  EXPECT_EQ(s_out[1], 1.0f);
  EXPECT_EQ(s_out[2], 0.5f);
}

TEST(ElementwiseKernels, ShiftPowAbsClipEdgeCases) {
  const uint8_t x[3] = {0x81, 0x81, 1}, s[3] = {1, 8, 7};
  uint8_t l[3], r[3];
  kiln_broadcast_t p = flat(3);
  ASSERT_EQ(kiln_bitshift_left_u8(&p, x, s, l), KILN_OK);
  ASSERT_EQ(kiln_bitshift_right_u8(&p, x, s, r), KILN_OK);
  EXPECT_EQ(l[0], 0x02);
  EXPECT_EQ(l[1], 0);  // shift by the width: 0, not UB
  EXPECT_EQ(l[2], 0x80);
  EXPECT_EQ(r[0], 0x40);
  EXPECT_EQ(r[1], 0);

  const int32_t base[4] = {3, 2, -1, 2}, e[4] = {4, 31, -3, -1};
  int32_t pw[4];
  p = flat(4);
  ASSERT_EQ(kiln_pow_i32_i32(&p, base, e, pw), KILN_OK);
  EXPECT_EQ(pw[0], 81);
  EXPECT_EQ(pw[1], INT32_MIN);  // 2^31 wraps
  EXPECT_EQ(pw[2], -1);
  EXPECT_EQ(pw[3], 0);
  const int64_t b64[2] = {10, 2};
  const float ef[2] = {30.0f, 0.5f};
  int64_t p64[2];
  p = flat(2);
  ASSERT_EQ(kiln_pow_i64_f32(&p, b64, ef, p64), KILN_OK);
  EXPECT_EQ(p64[0], INT64_MAX);  // 1e30 saturates
  EXPECT_EQ(p64[1], 1);          // sqrt(2) truncates

  const int8_t a[3] = {INT8_MIN, -3, 4};
  int8_t ab[3];
  ASSERT_EQ(kiln_abs_i8(a, ab, 3), KILN_OK);
  EXPECT_EQ(ab[0], INT8_MIN);  // wraps like numpy
  EXPECT_EQ(ab[1], 3);

  const float c[4] = {-5, NAN, 0.5f, 9};
  const float hi = 1.0f;
  float co[4];
  ASSERT_EQ(kiln_clip_range_f32(c, nullptr, &hi, co, 4), KILN_OK);
  EXPECT_EQ(co[0], -5);  // no lower bound
  EXPECT_TRUE(std::isnan(co[1]));
  EXPECT_EQ(co[2], 0.5f);
  EXPECT_EQ(co[3], 1.0f);
}

TEST(ElementwiseKernels, NullPointersAreRejected) {
  kiln_broadcast_t p = flat(1);
  float out[1];
  const float a[1] = {1};
  EXPECT_EQ(kiln_add_f32(&p, a, nullptr, out), KILN_ERR_NULL_POINTER);
  EXPECT_EQ(kiln_exp_f32(nullptr, out, 1), KILN_ERR_NULL_POINTER);
  EXPECT_EQ(kiln_exp_f32(nullptr, nullptr, 0), KILN_OK);
  EXPECT_EQ(kiln_cast_f32_i8(a, nullptr, 1), KILN_ERR_NULL_POINTER);
}

}  // namespace
