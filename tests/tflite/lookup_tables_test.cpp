// The int8 lookup tables: each entry is TFLite's integer algorithm on that input.
// The integer algorithms approximate the real functions to within one step of
// the output scale, which these tests check over a range of input scales and zero
// points; special points (zero input, saturation) are checked exactly.
#include <gtest/gtest.h>

#include <cmath>

#include "quant/gemmlowp_activations.h"
#include "tflite/lookup_tables.h"

namespace kiln::tflite {
namespace {

// Max |table - round(f(real input) / out_scale) - zp| over the 256 inputs.
template <class F>
int max_error(const LookupTable& t, QuantParams in, QuantParams out, F f) {
  int worst = 0;
  for (int i = 0; i < 256; ++i) {
    const double x = double(in.scale) * (i - 128 - in.zero_point);
    const double ideal = std::clamp(std::round(f(x) / out.scale) + out.zero_point, -128.0, 127.0);
    worst = std::max(worst, int(std::abs(t[i] - ideal)));
  }
  return worst;
}

const QuantParams kInputs[] = {{0.1f, 0}, {0.05f, -20}, {0.0235f, 17}, {1.0f / 16, -128}, {0.5f, 3}};

TEST(LookupTables, LogisticWithinOneStepAndExactAtZero) {
  for (QuantParams in : kInputs) {
    const QuantParams out{1.0f / 256, -128};
    LookupTable t = logistic_table(in);
    EXPECT_LE(max_error(t, in, out, [](double x) { return 1 / (1 + std::exp(-x)); }), 1) << in.scale;
    EXPECT_EQ(t[in.zero_point + 128], 0) << "logistic(0) = 0.5 -> 128/256 - 128";
    for (int i = 1; i < 256; ++i) EXPECT_GE(t[i], t[i - 1]) << "monotonic";
  }
}

TEST(LookupTables, TanhWithinOneStepOddAroundZero) {
  for (QuantParams in : kInputs) {
    const QuantParams out{1.0f / 128, 0};
    LookupTable t = tanh_table(in);
    EXPECT_LE(max_error(t, in, out, [](double x) { return std::tanh(x); }), 1) << in.scale;
    EXPECT_EQ(t[in.zero_point + 128], 0);
  }
}

TEST(LookupTables, HardSwishWithinOneStep) {
  for (QuantParams in : kInputs) {
    const QuantParams out{in.scale * 0.7f, 5};
    LookupTable t = hard_swish_table(in, out);
    EXPECT_LE(max_error(t, in, out, [](double x) { return x * std::clamp(x + 3, 0.0, 6.0) / 6; }), 1) << in.scale;
  }
}

TEST(LookupTables, LeakyReluRequantizeAndRelu) {
  const QuantParams in{0.05f, -3}, out{0.04f, 10};
  EXPECT_LE(max_error(leaky_relu_table(in, out, 0.2f), in, out, [](double x) { return x > 0 ? x : 0.2 * x; }), 1);
  EXPECT_LE(max_error(requantize_table(in, out), in, out, [](double x) { return x; }), 1);
  LookupTable relu = relu_table(in, out, 0.0f, INFINITY);
  EXPECT_LE(max_error(relu, in, out, [](double x) { return std::max(x, 0.0); }), 1);
  for (int8_t v : relu) EXPECT_GE(v, out.zero_point);
  // The same quantization both sides: requantization is the identity.
  LookupTable same = requantize_table(in, in);
  for (int i = 0; i < 256; ++i) EXPECT_EQ(same[i], i - 128);
  // RELU6 clamps in the input's domain: [zero point, zero point + round(6 / scale)].
  LookupTable r6 = relu6_table(in);
  for (int i = 0; i < 256; ++i) EXPECT_EQ(r6[i], std::clamp(i - 128, -3, -3 + 120));
}

// Found by `make fuzz` (UBSan): with a scale ratio of 2^30 or more the rescaled
// value saturates at -(2^31 - 1) and adding the output zero point overflowed int32.
// The tables saturate: every input below the zero point gives -128, above it 127.
TEST(LookupTables, HugeScaleRatiosSaturate) {
  const QuantParams in{1e30f, -3}, out{1e-6f, -20};
  for (const LookupTable& t : {requantize_table(in, out), relu_table(in, out, -INFINITY, INFINITY),
                               leaky_relu_table(in, out, 0.5f)}) {
    for (int i = 0; i < 256; ++i) {
      const int x = i - 128;
      EXPECT_EQ(t[i], x < in.zero_point ? -128 : x > in.zero_point ? 127 : out.zero_point) << x;
    }
  }
}

TEST(LookupTables, ScalesTheKernelCannotTakeAreRefused) {
  EXPECT_THROW(logistic_table({1e-12f, 0}), std::invalid_argument);
}

TEST(GemmlowpActivations, KnownPoints) {
  // logistic(0) is exactly one half; tanh(0) is 0; exp(0) is "one" (INT32_MAX).
  EXPECT_EQ(quant::gemmlowp_logistic(0, 4), 1 << 30);
  EXPECT_EQ(quant::gemmlowp_tanh(0, 4), 0);
  EXPECT_EQ(quant::gemmlowp_exp_on_negative_values(0, 4), INT32_MAX);
  // exp(-1) in Q0.31 with the input -1.0 in Q4.27: within a few raw steps of the truth.
  const double e = quant::gemmlowp_exp_on_negative_values(-(1 << 27), 4) / 2147483648.0;
  EXPECT_NEAR(e, std::exp(-1.0), 1e-6);
}

}  // namespace
}  // namespace kiln::tflite
