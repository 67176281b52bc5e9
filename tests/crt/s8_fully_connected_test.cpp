// kiln_fully_connected_s8 against a naive matrix product with TFLite's
// requantization, bit for bit (weights and requantization tables from the
// lowering's builders): one and several rows, odd feature counts, output counts
// that are not a multiple of four, per-tensor and per-channel scales, clamps.
#include <gtest/gtest.h>

#include "s8_test_support.h"

namespace {

void check_fc(int rows, int k, int nout, std::mt19937& rng, bool with_bias = true) {
  const auto x = s8test::random_int8(rng, size_t(rows) * k);
  const auto w = s8test::random_int8(rng, size_t(nout) * k, -127, 127);
  const auto bias = with_bias ? s8test::random_bias(rng, size_t(nout)) : std::vector<int32_t>{};
  const s8test::Quant q = s8test::random_quant(rng, nout, 1.0 / (double(k) * 40.0));
  std::vector<int8_t> expected(size_t(rows) * nout);
  for (int r = 0; r < rows; ++r)
    for (int o = 0; o < nout; ++o) {
      int32_t acc = bias.empty() ? 0 : bias[size_t(o)];
      for (int i = 0; i < k; ++i) acc += (x[size_t(r * k + i)] - q.x_zp) * w[size_t(o * k + i)];
      expected[size_t(r * nout + o)] = s8test::reference_output(acc, q.scales[size_t(o)], q.y_zp, q.act_min, q.act_max);
    }
  std::vector<int64_t> w64(w.begin(), w.end());
  const auto wk = s8test::to_int16(kiln::s8_weight_blocks(w64, 1, nout, k));
  const auto rq = s8test::requant_table(q.scales, q.y_zp);
  kiln_fully_connected_s8_params_t p{};
  p.rows = rows, p.in_features = k, p.out_features = nout;
  p.input_offset = -q.x_zp, p.output_offset = q.y_zp, p.act_min = q.act_min, p.act_max = q.act_max;
  std::vector<int16_t> scratch(size_t(2 * kiln::s8_row_len(k)), int16_t(0x5a5a));
  std::vector<int8_t> got(expected.size(), int8_t(0x33));
  ASSERT_EQ(kiln_fully_connected_s8(&p, x.data(), wk.data(), bias.empty() ? nullptr : bias.data(), rq.data(),
                                    got.data(), scratch.data()),
            KILN_OK);
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_EQ(int(got[i]), int(expected[i])) << "element " << i << " of " << rows << "x" << k << " -> " << nout;
  // The int8-weight form (the lowering's for MVE targets).
  const kiln::ConstantPtr w8 = kiln::s8_weight_blocks_w8(w64, 1, nout, k);
  const auto kernel_bias =
      kiln::s8_fold_input_offset(std::vector<int64_t>(bias.begin(), bias.end()), w64, nout, k, -q.x_zp);
  ASSERT_TRUE(kernel_bias.has_value());
  std::vector<int8_t> scratch8(size_t(2 * kiln::s8_row_len8(k)), int8_t(0x5a));
  std::vector<int8_t> got8(expected.size(), int8_t(0x44));
  ASSERT_EQ(kiln_fully_connected_s8_w8(&p, x.data(), reinterpret_cast<const int8_t*>(w8->data()),
                                       kernel_bias->data(), rq.data(), got8.data(), scratch8.data()),
            KILN_OK);
  EXPECT_EQ(got8, expected) << "int8-weight form, " << rows << "x" << k << " -> " << nout;
  // The compact form (a sized parameter pool): 8-byte requantization records.
  const kiln::ConstantPtr qm = kiln::s8_requant_records(q.scales);
  std::vector<int8_t> gotq(expected.size(), int8_t(0x55));
  ASSERT_EQ(kiln_fully_connected_s8_w8q(&p, x.data(), reinterpret_cast<const int8_t*>(w8->data()),
                                        kernel_bias->data(), reinterpret_cast<const int32_t*>(qm->data()), gotq.data(),
                                        scratch8.data()),
            KILN_OK);
  EXPECT_EQ(gotq, expected) << "compact int8-weight form, " << rows << "x" << k << " -> " << nout;
}

TEST(S8FullyConnected, OneRowLikeKwsClassifier) {
  std::mt19937 rng(31);
  check_fc(1, 64, 12, rng);
}

TEST(S8FullyConnected, AutoencoderLayer) {
  std::mt19937 rng(32);
  check_fc(1, 640, 128, rng);
}

TEST(S8FullyConnected, SeveralRowsOddSizes) {
  std::mt19937 rng(33);
  check_fc(3, 7, 5, rng);
  check_fc(2, 1, 1, rng, false);
  check_fc(5, 33, 10, rng);
}

TEST(S8FullyConnected, RandomShapes) {
  std::mt19937 rng(34);
  std::uniform_int_distribution<int> rows(1, 5), k(1, 70), n(1, 19), coin(0, 3);
  for (int t = 0; t < 80; ++t) {
    check_fc(rows(rng), k(rng), n(rng), rng, coin(rng) != 0);
    if (HasFatalFailure()) return;
  }
}

TEST(S8FullyConnected, RejectsNullPointers) {
  kiln_fully_connected_s8_params_t p{1, 4, 4, 0, 0, -128, 127};
  int8_t x[4] = {}, y[4] = {};
  int16_t w[16] = {};
  kiln_s8_requant_t rq[4] = {};
  EXPECT_EQ(kiln_fully_connected_s8(&p, x, w, nullptr, rq, y, nullptr), KILN_ERR_NULL_POINTER);
}

}  // namespace
