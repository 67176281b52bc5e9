// What the int8 GEMM-style lowerings (qnn_conv.cpp, qnn_fully_connected.cpp) share:
// reading the KilnQ* quantization attributes, the per-channel requantization table
// (kiln_s8_requant_t, crt/include/kiln/nn_s8.h) and the int16 weight blocks the
// kernels' inner loop reads (see crt/src/kernels/s8/requant_s8.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace kiln {

// x_zero_point, y_zero_point, act_min, act_max and requant_scale of a KilnQ* node,
// checked (zero points and clamps in int8 range, act_min <= act_max, 1 or
// `channels` positive finite scales). Scales are expanded to one per channel.
struct S8Quant {
  int64_t x_zero_point = 0, y_zero_point = 0, act_min = -128, act_max = 127;
  std::vector<double> requant_scale;  // one per output channel
};
S8Quant read_s8_quant(const Node& n, int64_t channels);

// The C initializer fields shared by the s8 parameter structs:
// ".input_offset = .., .output_offset = .., .act_min = .., .act_max = ..".
std::string s8_quant_fields(const S8Quant& q);

// kiln_s8_requant_t per channel, as little-endian bytes (32 per channel); the
// short form carries the output zero point (round_offset, nn_s8.h).
ConstantPtr s8_requant_table(const std::vector<double>& scales, int64_t y_zero_point);

// int16 weight blocks: `groups` groups of `rows_per_group` rows of `taps` int8 values
// each (row r of group g at w[(g * rows_per_group + r) * taps + k]), each group in
// blocks of four rows (zero rows pad the last), tap pairs interleaved, rows zero
// padded to KILN_S8_ROW_LEN(taps).
ConstantPtr s8_weight_blocks(const std::vector<int64_t>& w, int64_t groups, int64_t rows_per_group, int64_t taps);
int64_t s8_row_len(int64_t taps);
// int16 depthwise weights from TFLite's [taps, channels] int8 order: blocks of four
// channels, each block tap by tap (w[(c / 4) * taps * 4 + t * 4 + c % 4]), the last
// block zero padded.
ConstantPtr s8_depthwise_weights(const std::vector<int64_t>& w, int64_t taps, int64_t channels);

// Throws when the int32 accumulator could overflow: |x - zp| <= 255, |w| <= 128.
void check_s8_accumulator(const Node& n, int64_t taps);

// The int8 weights of input `i` as int64 values; throws unless constant int8.
std::vector<int64_t> s8_weights(const Node& n, size_t i);
// Optional int32 bias [channels]; throws naming the node when it is malformed.
void check_s8_bias(const Node& n, size_t i, int64_t channels);

}  // namespace kiln
