#include "lower/ops/qnn_s8_params.h"

#include <algorithm>
#include <cmath>

#include "ir/kiln_ops.h"
#include "lower/lower_util.h"
#include "quant/fixed_point.h"
#include "util/error.h"

namespace kiln {

namespace {

void put_le(std::vector<uint8_t>& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(uint8_t(v >> (8 * i)));
}

}  // namespace

S8Quant read_s8_quant(const Node& n, int64_t channels) {
  const ops::QuantIO a = ops::get_attrs<ops::QuantIO>(n);
  S8Quant q;
  q.x_zero_point = a.x_zero_point;
  q.y_zero_point = a.y_zero_point;
  q.act_min = a.act_min;
  q.act_max = a.act_max;
  // Zero points and clamp in int8, the clamp ordered, scales positive and finite:
  // lower_node checked the node against its definition (ir/kiln_ops.h). What is
  // left is the channel count, which comes from the output the lowering sees.
  const std::vector<double>& s = a.requant_scale;
  if (s.size() != 1 && int64_t(s.size()) != channels)
    throw CompileError(n.describe() + ": requant_scale has " + std::to_string(s.size()) + " values, expected 1 or " +
                       std::to_string(channels));
  q.requant_scale = s.size() == 1 ? std::vector<double>(size_t(channels), s[0]) : s;
  return q;
}

std::string s8_quant_fields(const S8Quant& q) {
  return ".input_offset = " + std::to_string(-q.x_zero_point) + ", .output_offset = " + std::to_string(q.y_zero_point) +
         ", .act_min = " + std::to_string(q.act_min) + ", .act_max = " + std::to_string(q.act_max);
}

ConstantPtr s8_requant_table(const std::vector<double>& scales, int64_t y_zero_point) {
  std::vector<uint8_t> bytes;
  for (double s : scales) {
    const quant::QuantizedMultiplier qm = quant::quantize_multiplier(s);
    int64_t round_pos, round_neg;
    int32_t shift, exponent = 0, round_offset = 0;
    if (qm.shift >= 0) {  // left shift S: (acc * M + 2^(30-S)) >> (31-S), no sign correction
      shift = 31 - qm.shift;
      round_pos = round_neg = int64_t(1) << (30 - qm.shift);
    } else {  // right shift e: SRDHM then RoundingDivideByPOT folded, ties away from zero
      const int e = -qm.shift;
      shift = 31 + e;
      round_pos = (int64_t(1) << 30) + (int64_t(1) << (30 + e));
      round_neg = round_pos - (int64_t(1) << 31);
      exponent = e;
      // The short form's rounding with the output offset folded in (nn_s8.h); its
      // magnitude stays below 2^30 up to exponent 22, beyond which the kernels
      // use the general form.
      if (e <= 22) round_offset = int32_t((int64_t(1) << (e - 1)) + y_zero_point * (int64_t(1) << e));
    }
    put_le(bytes, uint64_t(uint32_t(qm.multiplier)), 4);
    put_le(bytes, uint64_t(uint32_t(round_offset)), 4);
    put_le(bytes, uint64_t(uint32_t(exponent)), 4);
    put_le(bytes, uint64_t(uint32_t(shift)), 4);
    put_le(bytes, uint64_t(round_pos), 8);
    put_le(bytes, uint64_t(round_neg), 8);
  }
  const int64_t count = int64_t(bytes.size());
  return Constant::from_bytes(DType::UInt8, {count}, std::move(bytes));
}

ConstantPtr s8_requant_records(const std::vector<double>& scales) {
  std::vector<uint8_t> bytes;
  for (double s : scales) {
    const quant::QuantizedMultiplier qm = quant::quantize_multiplier(s);
    put_le(bytes, uint64_t(uint32_t(qm.multiplier)), 4);
    put_le(bytes, uint64_t(uint32_t(qm.shift)), 4);
  }
  return Constant::from_bytes(DType::Int32, {int64_t(scales.size()) * 2}, std::move(bytes));
}

int64_t s8_row_len(int64_t taps) { return (taps + 3) / 4 * 4; }

ConstantPtr s8_weight_blocks(const std::vector<int64_t>& w, int64_t groups, int64_t rows_per_group, int64_t taps) {
  const int64_t row_len = s8_row_len(taps), blocks = (rows_per_group + 3) / 4;
  std::vector<uint8_t> bytes(size_t(groups * blocks * 4 * row_len * 2), 0);
  auto put = [&](int64_t idx, int64_t v) {
    bytes[size_t(idx * 2)] = uint8_t(uint16_t(int16_t(v)));
    bytes[size_t(idx * 2 + 1)] = uint8_t(uint16_t(int16_t(v)) >> 8);
  };
  for (int64_t g = 0; g < groups; ++g)
    for (int64_t r = 0; r < rows_per_group; ++r)
      for (int64_t k = 0; k < taps; ++k) {
        const int64_t block = r / 4, lane = r % 4;
        const int64_t dst = (g * blocks + block) * 4 * row_len + (k / 2) * 8 + lane * 2 + (k % 2);
        put(dst, w[size_t((g * rows_per_group + r) * taps + k)]);
      }
  const int64_t count = int64_t(bytes.size() / 2);
  return Constant::from_bytes(DType::Int16, {count}, std::move(bytes));
}

int64_t s8_row_len8(int64_t taps) { return (taps + 15) / 16 * 16; }

ConstantPtr s8_weight_blocks_w8(const std::vector<int64_t>& w, int64_t groups, int64_t rows_per_group, int64_t taps) {
  const int64_t row_len = s8_row_len8(taps), blocks = (rows_per_group + 3) / 4;
  std::vector<uint8_t> bytes(size_t(groups * blocks * 4 * row_len), 0);
  for (int64_t g = 0; g < groups; ++g)
    for (int64_t r = 0; r < rows_per_group; ++r)
      for (int64_t k = 0; k < taps; ++k) {
        const int64_t dst = (g * blocks + r / 4) * 4 * row_len + (k / 16) * 64 + (r % 4) * 16 + k % 16;
        bytes[size_t(dst)] = uint8_t(int8_t(w[size_t((g * rows_per_group + r) * taps + k)]));
      }
  const int64_t count = int64_t(bytes.size());
  return Constant::from_bytes(DType::Int8, {count}, std::move(bytes));
}

std::optional<std::vector<int32_t>> s8_fold_input_offset(const std::vector<int64_t>& bias,
                                                         const std::vector<int64_t>& w, int64_t channels,
                                                         int64_t taps, int64_t input_offset) {
  std::vector<int32_t> out(static_cast<size_t>(channels));
  for (int64_t c = 0; c < channels; ++c) {
    int64_t v = bias.empty() ? 0 : bias[size_t(c)];
    for (int64_t k = 0; k < taps; ++k) v += input_offset * w[size_t(c * taps + k)];
    if (v < INT32_MIN || v > INT32_MAX) return std::nullopt;
    out[size_t(c)] = int32_t(v);
  }
  return out;
}

std::optional<ConstantPtr> s8_kernel_bias(const Node& n, size_t bias_input, const std::vector<int64_t>& w,
                                          int64_t channels, int64_t taps, int64_t input_offset) {
  std::vector<int64_t> bias;
  if (const Value* b = n.input(bias_input)) {
    if (!b->is_constant()) return std::nullopt;
    bias = b->constant->to_int64s();
  }
  const std::optional<std::vector<int32_t>> folded = s8_fold_input_offset(bias, w, channels, taps, input_offset);
  if (!folded) return std::nullopt;
  std::vector<uint8_t> bytes;
  for (int32_t v : *folded)
    for (int i = 0; i < 4; ++i) bytes.push_back(uint8_t(uint32_t(v) >> (8 * i)));
  return Constant::from_bytes(DType::Int32, {channels}, std::move(bytes));
}

ConstantPtr s8_depthwise_weights(const std::vector<int64_t>& w, int64_t taps, int64_t channels) {
  const int64_t blocks = (channels + 3) / 4;
  std::vector<uint8_t> bytes(size_t(blocks * taps * 4 * 2), 0);
  for (int64_t t = 0; t < taps; ++t)
    for (int64_t c = 0; c < channels; ++c) {
      const int64_t dst = (c / 4) * taps * 4 + t * 4 + c % 4;
      const uint16_t v = uint16_t(int16_t(w[size_t(t * channels + c)]));
      bytes[size_t(dst * 2)] = uint8_t(v);
      bytes[size_t(dst * 2 + 1)] = uint8_t(v >> 8);
    }
  const int64_t count = int64_t(bytes.size() / 2);
  return Constant::from_bytes(DType::Int16, {count}, std::move(bytes));
}

std::optional<int64_t> s8_constant_output(const std::vector<int64_t>& w, int64_t row, int64_t taps, int64_t bias,
                                          const quant::QuantizedMultiplier& qm, const S8Quant& q) {
  // The accumulator's range over every input (a padded tap adds 0, inside it).
  const int64_t x_lo = -128 - q.x_zero_point, x_hi = 127 - q.x_zero_point;
  int64_t lo = bias, hi = bias;
  for (int64_t k = 0; k < taps; ++k) {
    const int64_t v = w[size_t(row * taps + k)];
    lo += std::min(v * x_lo, v * x_hi);
    hi += std::max(v * x_lo, v * x_hi);
  }
  if (qm.shift > 0 || lo < INT32_MIN || hi > INT32_MAX) return std::nullopt;
  // The output is monotonic in the accumulator: equal at both ends, equal everywhere.
  auto out = [&](int64_t acc) {
    const int64_t y = q.y_zero_point + quant::multiply_by_quantized_multiplier(int32_t(acc), qm.multiplier, qm.shift);
    return std::min<int64_t>(std::max<int64_t>(y, q.act_min), q.act_max);
  };
  if (out(lo) != out(hi)) return std::nullopt;
  return out(lo);
}

std::optional<ConstantPtr> s8_packed_blocks(const Node& n, size_t bias_input, const std::vector<int64_t>& w,
                                            int64_t rows, int64_t taps, const S8Quant& q, S8Pack layout) {
  if (q.act_min != -128 || q.act_max != 127) return std::nullopt;
  const bool depthwise = layout == S8Pack::Depthwise, pairs = layout == S8Pack::Pairs;
  if (pairs && (rows % 2 != 0 || taps % 4 != 0)) return std::nullopt;
  std::vector<int64_t> bias(size_t(rows), 0);
  if (const Value* b = n.input(bias_input)) {
    if (!b->is_constant()) return std::nullopt;
    bias = b->constant->to_int64s();
    if (int64_t(bias.size()) != rows) return std::nullopt;
  }
  const int64_t bound = taps * 255 * 128;
  struct Rq {
    int32_t m, round_offset, e;
  };
  std::vector<Rq> rq(static_cast<size_t>(rows));
  std::vector<bool> constant(size_t(rows), false);
  for (int64_t r = 0; r < rows; ++r) {
    const quant::QuantizedMultiplier qm = quant::quantize_multiplier(q.requant_scale[size_t(r)]);
    const int64_t e = -int64_t(qm.shift);
    const int64_t b = bias[size_t(r)] < 0 ? -bias[size_t(r)] : bias[size_t(r)];
    if (e >= 1 && e <= 22 && b + bound < (int64_t(1) << 30)) {
      rq[size_t(r)] = {int32_t(qm.multiplier),
                       int32_t((int64_t(1) << (e - 1)) + q.y_zero_point * (int64_t(1) << e)), int32_t(e)};
      continue;
    }
    // A channel whose output is the same for every input (TFLite marks dead
    // channels with a bias near 2^30 and a tiny scale) becomes that constant:
    // weights and bias 0, multiplier 0, round_offset 2 * y, exponent 1.
    if (const std::optional<int64_t> y = s8_constant_output(w, r, taps, bias[size_t(r)], qm, q)) {
      constant[size_t(r)] = true;
      rq[size_t(r)] = {0, int32_t(2 * *y), 1};
      continue;
    }
    return std::nullopt;
  }
  // Weight words of a block: four rows of row_len int16, (depthwise) four
  // channels per tap, or (pairs) two rows of taps int16.
  const int64_t per = pairs ? 2 : 4, blocks = (rows + per - 1) / per;
  const int64_t weight_words = depthwise ? 2 * taps : pairs ? taps : 2 * s8_row_len(taps);
  const int64_t block_words = 4 + weight_words + 3 * per;
  std::vector<uint32_t> words(size_t(blocks * block_words), 0);
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t base = (r / per) * block_words, lane = r % per;
    const bool zero = constant[size_t(r)];
    const uint32_t b2 = zero ? 0u : uint32_t(int32_t(2 * bias[size_t(r)]));
    words[size_t(base + lane)] = b2;
    if (pairs) words[size_t(base + 2 + lane)] = b2;  // the bias of both pixels of the 2x2 block
    for (int64_t k = 0; k < taps && !zero; ++k) {
      // int16 index in the block's weights: per tap pair the four rows' pairs
      // (depthwise: per tap the four channels; pairs: per four taps k..k+3 each
      // row's taps k, k+2, k+1, k+3).
      const int64_t idx = depthwise ? k * 4 + lane
                          : pairs   ? (k / 4) * 8 + lane * 4 + (k % 2) * 2 + (k % 4) / 2
                                    : (k / 2) * 8 + lane * 2 + (k % 2);
      const uint32_t v = uint16_t(int16_t(2 * w[size_t(r * taps + k)]));
      uint32_t& word = words[size_t(base + 4 + idx / 2)];
      word |= (idx % 2) ? v << 16 : v;
    }
    const Rq& x = rq[size_t(r)];
    const int64_t at = base + 4 + weight_words + lane * 3;
    words[size_t(at)] = uint32_t(x.m);
    words[size_t(at + 1)] = uint32_t(x.round_offset);
    words[size_t(at + 2)] = uint32_t(x.e);
  }
  std::vector<uint8_t> bytes;
  bytes.reserve(words.size() * 4);
  for (uint32_t v : words) put_le(bytes, v, 4);
  return Constant::from_bytes(DType::Int32, {int64_t(words.size())}, std::move(bytes));
}

uint64_t s8_packed_scratch_bytes(int64_t taps, int64_t max_cols) {
  const int64_t row_len = s8_row_len(taps);
  const int64_t cols = std::max<int64_t>(1, std::min(max_cols, row_len >= 256 ? 1 : std::min<int64_t>(16, 256 / row_len)));
  return uint64_t(cols * row_len * 2);
}

uint64_t s8_pair_scratch_bytes(int64_t in_c, int64_t pixels) {
  const int64_t pk = in_c >= 256 ? 1 : std::min<int64_t>(16, 256 / in_c);
  const int64_t cols = pk < 2 ? 2 : pk / 2 * 2;
  // An odd last pixel takes a whole pair column too.
  const int64_t used = std::max<int64_t>(2, std::min(cols, pixels / 2 * 2));
  return uint64_t(used * in_c * 2);
}

void check_s8_accumulator(const Node& n, int64_t taps) {
  // |bias| < 2^31 is the front end's; the sum of products stays below 2^30.
  if (taps * 255 * 128 >= (int64_t(1) << 30))
    throw CompileError(n.describe() + ": " + std::to_string(taps) + " taps per output could overflow the int32 accumulator");
}

std::vector<int64_t> s8_weights(const Node& n, size_t i) {
  const Value* w = n.input(i);
  if (!w) throw CompileError(n.describe() + ": needs constant weights");
  require_dtype(n, w, DType::Int8, "weights");
  return constant_input(n, i, "weights")->to_int64s();
}

void check_s8_bias(const Node& n, size_t i, int64_t channels) {
  const Value* b = n.input(i);
  if (!b) return;
  require_dtype(n, b, DType::Int32, "bias");
  if (shape_elements(b->shape) != channels)
    throw CompileError(n.describe() + ": bias has " + std::to_string(shape_elements(b->shape)) + " values, expected " +
                       std::to_string(channels));
}

}  // namespace kiln
