// Convolution, pooling, resize and quantization kernels: the paths the ONNX tests
// do not reach separately (im2col tiling vs the direct loop in 3-D, the transposed
// convolution as the adjoint of Conv), and the exact integer / rounding rules.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "kiln_kernels.h"

namespace {

kiln_conv2d_params_t conv3d(uint32_t c_in, uint32_t c_out, uint32_t d, uint32_t k, uint32_t stride, int32_t pad,
                            uint32_t groups) {
  kiln_conv2d_params_t p{};
  p.n = 1, p.c_in = c_in, p.c_out = c_out, p.groups = groups;
  p.d_in = p.h_in = p.w_in = d;
  p.k_d = p.k_h = p.k_w = k;
  p.stride_d = p.stride_h = p.stride_w = stride;
  p.dilation_d = p.dilation_h = p.dilation_w = 1;
  p.pad_front = p.pad_top = p.pad_left = pad;
  const uint32_t o = (d + 2 * uint32_t(pad) - k) / stride + 1;
  p.d_out = p.h_out = p.w_out = o;
  return p;
}

std::vector<float> ramp(size_t n, float scale) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = scale * float(int(i * 7 % 11) - 5);
  return v;
}

TEST(Conv3d, Im2colTilesMatchTheDirectLoop) {
  kiln_conv2d_params_t p = conv3d(2, 3, 5, 3, 2, 1, 1);
  const auto x = ramp(2 * 125, 0.5f), w = ramp(3 * 2 * 27, 0.25f), b = ramp(3, 1.0f);
  const size_t out_n = 3 * p.d_out * p.h_out * p.w_out;
  std::vector<float> direct(out_n), tiled(out_n);
  ASSERT_EQ(kiln_conv2d_f32(&p, x.data(), w.data(), b.data(), direct.data(), nullptr), KILN_OK);
  p.tile_rows = 2;  // rows span depth and height: 3 x 3 rows in tiles of 2
  std::vector<float> scratch(2 * 27 * 2 * p.w_out);
  ASSERT_EQ(kiln_conv2d_f32(&p, x.data(), w.data(), b.data(), tiled.data(), scratch.data()), KILN_OK);
  for (size_t i = 0; i < out_n; ++i) EXPECT_FLOAT_EQ(direct[i], tiled[i]) << i;
  // One element by hand: output (oc=1, 0,0,0) covers input [-1,1]^3 of both channels.
  float ref = b[1];
  for (int ic = 0; ic < 2; ++ic)
    for (int z = 0; z < 3; ++z)
      for (int y = 0; y < 3; ++y)
        for (int xx = 0; xx < 3; ++xx) {
          const int iz = z - 1, iy = y - 1, ix = xx - 1;
          if (iz < 0 || iy < 0 || ix < 0) continue;
          ref += x[size_t(ic * 125 + (iz * 5 + iy) * 5 + ix)] * w[size_t(((1 * 2 + ic) * 3 + z) * 9 + y * 3 + xx)];
        }
  EXPECT_FLOAT_EQ(direct[1 * p.d_out * p.h_out * p.w_out], ref);
}

TEST(ConvTranspose, IsTheAdjointOfConv) {
  // <conv(x), y> == <x, conv_transpose(y)> with the same geometry and weights
  // read as [c_in][c_out] for the transpose (groups = 2 exercises the channel split).
  kiln_conv2d_params_t p = conv3d(4, 2, 6, 3, 2, 1, 2);
  p.d_in = p.d_out = 1, p.k_d = 1, p.pad_front = 0;  // a 2-D case
  const size_t nx = 4 * 36, ny = 2 * p.h_out * p.w_out;
  const auto x = ramp(nx, 0.5f), w = ramp(2 * 2 * 9, 0.25f), yv = ramp(ny, 0.75f);
  std::vector<float> cx(ny), ty(nx);
  ASSERT_EQ(kiln_conv2d_f32(&p, x.data(), w.data(), nullptr, cx.data(), nullptr), KILN_OK);
  // Transposed geometry: input = conv output, output = conv input; weights
  // [c_in_t = 2][c_out_t/groups = 2][3][3] are the conv weights [2][2][3][3].
  kiln_conv2d_params_t t = p;
  t.c_in = 2, t.c_out = 4;
  t.h_in = p.h_out, t.w_in = p.w_out, t.h_out = p.h_in, t.w_out = p.w_in;
  ASSERT_EQ(kiln_conv_transpose_f32(&t, yv.data(), w.data(), nullptr, ty.data()), KILN_OK);
  double lhs = 0, rhs = 0;
  for (size_t i = 0; i < ny; ++i) lhs += double(cx[i]) * yv[i];
  for (size_t i = 0; i < nx; ++i) rhs += double(x[i]) * ty[i];
  EXPECT_NEAR(lhs, rhs, 1e-3 * std::fabs(lhs) + 1e-3);
}

TEST(MaxPool, IndicesFollowStorageOrderAndFirstMaximumWins) {
  kiln_pool2d_params_t p{};
  p.n = 1, p.c = 2, p.d_in = p.d_out = 1, p.h_in = 2, p.w_in = 3, p.h_out = 1, p.w_out = 2;
  p.k_d = 1, p.k_h = 2, p.k_w = 2, p.stride_d = p.stride_h = 1, p.stride_w = 1;
  p.dilation_d = p.dilation_h = p.dilation_w = 1;
  const float x[12] = {1, 9, 2, 3, 4, 9, /* channel 1 */ 5, 5, 5, 5, 5, 5};
  float y[4];
  int64_t idx[4];
  ASSERT_EQ(kiln_maxpool2d_f32(&p, x, y, idx), KILN_OK);
  EXPECT_EQ(y[0], 9);
  EXPECT_EQ(idx[0], 1);
  EXPECT_EQ(y[1], 9);
  EXPECT_EQ(idx[1], 1);  // tie with (1,2): the first in scan order
  EXPECT_EQ(idx[2], 6);                      // all equal: the first element of channel 1
  p.storage_order = 1;                       // column-major spatial index: x * h_in + y
  ASSERT_EQ(kiln_maxpool2d_f32(&p, x, y, idx), KILN_OK);
  EXPECT_EQ(idx[0], 1 * 2 + 0);
  const uint8_t u[6] = {0, 255, 7, 3, 254, 1};
  uint8_t uy[2];
  p.c = 1, p.storage_order = 0;
  ASSERT_EQ(kiln_maxpool2d_u8(&p, u, uy, nullptr), KILN_OK);
  EXPECT_EQ(uy[0], 255);
  EXPECT_EQ(uy[1], 255);
}

TEST(AveragePool, CeilModeWindowsDoNotCountPositionsPastThePads) {
  kiln_pool2d_params_t p{};
  p.n = p.c = 1, p.d_in = p.d_out = p.h_in = p.h_out = 1, p.w_in = 4, p.w_out = 3;
  p.k_d = p.k_h = 1, p.k_w = 2, p.stride_d = p.stride_h = 1, p.stride_w = 2;
  p.dilation_d = p.dilation_h = p.dilation_w = 1;
  p.pad_left = 1, p.pad_right = 0, p.count_include_pad = 1;
  const float x[4] = {2, 4, 6, 8};
  float y[3];
  ASSERT_EQ(kiln_avgpool2d_f32(&p, x, y), KILN_OK);
  EXPECT_FLOAT_EQ(y[0], 1.0f);  // (pad 0 + 2) / 2
  EXPECT_FLOAT_EQ(y[1], 5.0f);
  EXPECT_FLOAT_EQ(y[2], 8.0f);  // window [3, 4]: position 4 is past the pads, not counted
}

TEST(Quantize, RoundsHalfToEvenAndSaturates) {
  kiln_quant_params_t p{1, 1, 8, 0, KILN_Q_U8};
  const float x[8] = {0.5f, 1.5f, 2.5f, -0.5f, -3.0f, 300.0f, 253.5f, 254.5f};
  const float scale = 1.0f;
  const uint8_t zp = 0;
  uint8_t y[8];
  ASSERT_EQ(kiln_quantize_linear_f32(&p, x, &scale, &zp, y), KILN_OK);
  const uint8_t want[8] = {0, 2, 2, 0, 0, 255, 254, 254};
  for (int i = 0; i < 8; ++i) EXPECT_EQ(y[i], want[i]) << i;
  // Per-axis int8: axis of size 2, inner 2.
  kiln_quant_params_t q{1, 2, 2, 1, KILN_Q_I8};
  const float xs[4] = {1.0f, -1.0f, 1.0f, -1.0f}, scales[2] = {0.5f, 0.25f};
  const int8_t zps[2] = {0, 120};
  int8_t yq[4];
  ASSERT_EQ(kiln_quantize_linear_f32(&q, xs, scales, zps, yq), KILN_OK);
  EXPECT_EQ(yq[0], 2);
  EXPECT_EQ(yq[1], -2);
  EXPECT_EQ(yq[2], 124);
  EXPECT_EQ(yq[3], 116);
  float back[4];
  ASSERT_EQ(kiln_dequantize_linear_f32(&q, yq, scales, zps, back), KILN_OK);
  for (int i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(back[i], xs[i]);
}

TEST(QLinearMatMul, ExactAccumulatorThenRequantize) {
  kiln_qlinear_matmul_params_t p{};
  p.mm.m = 1, p.mm.n = 2, p.mm.k = 3, p.mm.a_type = KILN_Q_U8, p.mm.b_type = KILN_Q_I8;
  p.y_type = KILN_Q_U8, p.batches = 1;
  const uint8_t a[3] = {255, 0, 128}, azp = 128;
  const int8_t b[6] = {127, -128, -128, 127, 1, 1}, bzp = 0;
  const float as = 1.0f, bs = 1.0f, ys = 256.0f;
  const uint8_t yzp = 10;
  int32_t acc[2];
  ASSERT_EQ(kiln_matmul_integer_s32(&p.mm, a, &azp, b, &bzp, acc), KILN_OK);
  EXPECT_EQ(acc[0], 127 * 127 + (-128) * (-128) + 0);  // 32513
  EXPECT_EQ(acc[1], 127 * (-128) + (-128) * 127 + 0);  // -32512
  uint8_t y[2];
  int32_t scratch[2];
  ASSERT_EQ(kiln_qlinear_matmul(&p, a, &as, &azp, b, &bs, &bzp, &ys, &yzp, y, scratch), KILN_OK);
  EXPECT_EQ(y[0], 10 + 127);  // 32513 / 256 = 127.00390625 -> 127
  EXPECT_EQ(y[1], 0);         // -127 + 10 saturates at 0
}

TEST(Resize, NearestModesAndLinearHalfPixel) {
  kiln_resize_params_t p{};
  p.rank = 1, p.in_shape[0] = 4, p.out_shape[0] = 8;
  const float x[4] = {0, 10, 20, 30};
  float y[8];
  p.mode = KILN_RESIZE_NEAREST, p.coord = KILN_COORD_ASYMMETRIC, p.nearest = KILN_NEAREST_ROUND_PREFER_CEIL;
  ASSERT_EQ(kiln_resize_f32(&p, x, nullptr, nullptr, y), KILN_OK);
  const float ceil_want[8] = {0, 10, 10, 20, 20, 30, 30, 30};  // x/2 = 0.5 -> 1 ... clamped at 3
  for (int i = 0; i < 8; ++i) EXPECT_EQ(y[i], ceil_want[i]) << i;
  p.nearest = KILN_NEAREST_FLOOR;
  ASSERT_EQ(kiln_resize_f32(&p, x, nullptr, nullptr, y), KILN_OK);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(y[i], x[i / 2]) << i;
  p.mode = KILN_RESIZE_LINEAR, p.coord = KILN_COORD_HALF_PIXEL;
  ASSERT_EQ(kiln_resize_f32(&p, x, nullptr, nullptr, y), KILN_OK);
  EXPECT_FLOAT_EQ(y[0], 0.0f);   // -0.25 clamps to the edge
  EXPECT_FLOAT_EQ(y[1], 2.5f);   // 0.25
  EXPECT_FLOAT_EQ(y[4], 17.5f);  // 1.75
  EXPECT_FLOAT_EQ(y[7], 30.0f);
}

}  // namespace
