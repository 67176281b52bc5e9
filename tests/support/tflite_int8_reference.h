// TFLite's reference integer kernels (reference_integer_ops / reference_ops as
// TFLite Micro runs them) written out naively for tests: int8 Add/Sub, Mul,
// Softmax, AveragePool, MaxPool. Every multiplier is computed from the scales as
// TFLite's Prepare does and applied with TFLite's double-rounding fixed-point steps
// (quant/fixed_point.h, quant/gemmlowp_fixed_point.h) - no folding, no tables.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "kiln/nn_s8_pool.h"
#include "quant/fixed_point.h"
#include "quant/gemmlowp_fixed_point.h"

namespace kiln::tflite_ref {

struct BinaryQuant {
  float a_scale, b_scale, y_scale;
  int a_zp, b_zp, y_zp, act_min, act_max;
};

// AddFunc / SubFunc with left_shift 20 (TFLM CalculateOpDataAdd, sub.cc).
inline int8_t add(const BinaryQuant& c, int a, int b, bool subtract) {
  const double twice_max = 2 * static_cast<double>(std::max(c.a_scale, c.b_scale));
  const quant::QuantizedMultiplier qa = quant::quantize_multiplier(double(c.a_scale) / twice_max);
  const quant::QuantizedMultiplier qb = quant::quantize_multiplier(double(c.b_scale) / twice_max);
  const quant::QuantizedMultiplier qo = quant::quantize_multiplier(twice_max / ((1 << 20) * double(c.y_scale)));
  const int32_t scaled_a = quant::multiply_by_quantized_multiplier((a - c.a_zp) * (1 << 20), qa.multiplier, qa.shift);
  const int32_t scaled_b = quant::multiply_by_quantized_multiplier((b - c.b_zp) * (1 << 20), qb.multiplier, qb.shift);
  const int32_t raw = subtract ? scaled_a - scaled_b : scaled_a + scaled_b;
  const int32_t out = quant::multiply_by_quantized_multiplier(raw, qo.multiplier, qo.shift) + c.y_zp;
  return static_cast<int8_t>(std::min(c.act_max, std::max(c.act_min, out)));
}

// MulElementwise (TFLM CalculateOpDataMul: the product of the scales in double).
inline int8_t mul(const BinaryQuant& c, int a, int b) {
  const quant::QuantizedMultiplier m =
      quant::quantize_multiplier(double(c.a_scale) * double(c.b_scale) / double(c.y_scale));
  const int32_t out = c.y_zp + quant::multiply_by_quantized_multiplier((a - c.a_zp) * (b - c.b_zp), m.multiplier, m.shift);
  return static_cast<int8_t>(std::min(c.act_max, std::max(c.act_min, out)));
}

// reference_ops::Softmax<int8_t, int8_t> over rows of `depth`. A row whose sum of
// exponentials reaches 512 (2^28 in Q12.19: every probability below 1/512) fails
// TFLite's check on the final shift; the result holds -128 there (the correctly
// rounded 0) and `rows_beyond_tflite` counts such rows.
inline std::vector<int8_t> softmax(const std::vector<int8_t>& x, int depth, double beta, double x_scale,
                                   int* rows_beyond_tflite = nullptr) {
  const quant::SoftmaxScaling s = quant::softmax_scaling(beta, x_scale);
  std::vector<int8_t> y(x.size());
  if (rows_beyond_tflite) *rows_beyond_tflite = 0;
  auto exp_of = [&](int32_t diff) {  // MultiplyByQuantizedMultiplierGreaterThanOne, then exp in Q5.26
    const int32_t rescaled =
        quant::saturating_rounding_doubling_high_mul(diff * (1 << s.input_left_shift), s.input_multiplier);
    return quant::exp_on_negative_values_q5_26(rescaled);
  };
  for (size_t row = 0; row < x.size() / depth; ++row) {
    const int8_t* in = &x[row * depth];
    const int32_t max = *std::max_element(in, in + depth);
    int32_t sum = 0;  // Q12.19
    for (int c = 0; c < depth; ++c)
      if (in[c] - max >= s.diff_min) sum += quant::rounding_divide_by_pot(exp_of(in[c] - max), 12);
    // GetReciprocal(sum, 12)
    const int headroom = __builtin_clz(static_cast<uint32_t>(sum));
    const int num_bits_over_unit = 12 - headroom;
    const int32_t shifted_sum_minus_one = static_cast<int32_t>((static_cast<uint32_t>(sum) << headroom) - (1u << 31));
    const int32_t shifted_scale = quant::one_over_one_plus_x_for_x_in_0_1(shifted_sum_minus_one);
    const int exponent = num_bits_over_unit + 31 - 8;
    if (exponent > 31) {
      std::fill(y.begin() + row * depth, y.begin() + (row + 1) * depth, int8_t(-128));
      if (rows_beyond_tflite) ++*rows_beyond_tflite;
      continue;
    }
    for (int c = 0; c < depth; ++c) {
      int32_t out = -128;
      if (in[c] - max >= s.diff_min) {
        const int32_t unsat = quant::rounding_divide_by_pot(
            quant::saturating_rounding_doubling_high_mul(shifted_scale, exp_of(in[c] - max)), exponent);
        out = std::min(std::max(unsat - 128, -128), 127);
      }
      y[row * depth + c] = static_cast<int8_t>(out);
    }
  }
  return y;
}

// reference_integer_ops::AveragePool / MaxPool for int8, NHWC.
inline std::vector<int8_t> pool(const kiln_pool2d_s8_params_t& p, const std::vector<int8_t>& x, bool average) {
  std::vector<int8_t> y(size_t(p.batch) * p.out_h * p.out_w * p.channels);
  for (int b = 0; b < p.batch; ++b)
    for (int oy = 0; oy < p.out_h; ++oy)
      for (int ox = 0; ox < p.out_w; ++ox)
        for (int c = 0; c < p.channels; ++c) {
          const int in_x_origin = ox * p.stride_w - p.pad_left;
          const int in_y_origin = oy * p.stride_h - p.pad_top;
          const int fx0 = std::max(0, -in_x_origin), fx1 = std::min(p.kernel_w, p.in_w - in_x_origin);
          const int fy0 = std::max(0, -in_y_origin), fy1 = std::min(p.kernel_h, p.in_h - in_y_origin);
          int32_t acc = 0, count = 0, mx = -128;
          for (int fy = fy0; fy < fy1; ++fy)
            for (int fx = fx0; fx < fx1; ++fx) {
              const int v = x[((size_t(b) * p.in_h + in_y_origin + fy) * p.in_w + in_x_origin + fx) * p.channels + c];
              acc += v;
              ++count;
              mx = std::max(mx, v);
            }
          int32_t r = mx;
          if (average) r = acc > 0 ? (acc + count / 2) / count : (acc - count / 2) / count;
          r = std::min(std::max(r, p.act_min), p.act_max);
          y[((size_t(b) * p.out_h + oy) * p.out_w + ox) * p.channels + c] = static_cast<int8_t>(r);
        }
  return y;
}

}  // namespace kiln::tflite_ref
