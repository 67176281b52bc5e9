// What the int8 GEMM-style lowerings (qnn_conv.cpp, qnn_fully_connected.cpp) share:
// reading the KilnQ* quantization attributes, the per-channel requantization table
// (kiln_s8_requant_t, crt/include/kiln/nn_s8.h) and the int16 weight blocks the
// kernels' inner loop reads (see crt/src/kernels/s8/requant_s8.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "quant/fixed_point.h"

namespace kiln {

// x_zero_point, y_zero_point, act_min, act_max and requant_scale of a KilnQ* node
// (their ranges hold: lower_node checked the node against ir/kiln_ops.h), the
// scales expanded to one per channel (1 or `channels` given, else a CompileError).
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
// The compact form's records (kiln_conv2d_s8_w8q, nn_s8.h): TFLite's multiplier and
// shift per channel, int32 [2 * channels], 8 bytes where the table above has 32.
ConstantPtr s8_requant_records(const std::vector<double>& scales);

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

// The int8-weight form (kiln_conv2d_s8_w8 / kiln_fully_connected_s8_w8, nn_s8.h):
// rows of s8_row_len8(taps) int8 in blocks of four, each block as 16-tap chunks of
// its four rows; groups as s8_weight_blocks.
int64_t s8_row_len8(int64_t taps);
ConstantPtr s8_weight_blocks_w8(const std::vector<int64_t>& w, int64_t groups, int64_t rows_per_group, int64_t taps);
// That form's kernel bias: bias[c] (input `bias_input`, absent = 0) + input_offset
// * (sum of row c of w, `taps` values per row), int32 [channels]. nullopt when the
// bias is not a constant or a value does not fit int32 (the caller keeps the
// int16 form).
std::optional<ConstantPtr> s8_kernel_bias(const Node& n, size_t bias_input, const std::vector<int64_t>& w,
                                          int64_t channels, int64_t taps, int64_t input_offset);
// The same from values (bias empty = 0); nullopt when a value does not fit int32.
std::optional<std::vector<int32_t>> s8_fold_input_offset(const std::vector<int64_t>& bias,
                                                         const std::vector<int64_t>& w, int64_t channels,
                                                         int64_t taps, int64_t input_offset);

// The output of row `row` of w (`taps` values per row) with this bias and
// multiplier when it is the same for every input (the accumulator's whole range
// requantizes and clamps to one value), else nullopt.
std::optional<int64_t> s8_constant_output(const std::vector<int64_t>& w, int64_t row, int64_t taps, int64_t bias,
                                          const quant::QuantizedMultiplier& qm, const S8Quant& q);
// The packed form (kiln_conv2d_s8_pk / kiln_fully_connected_s8_pk, nn_s8.h): per
// block of four rows 2 * bias, the doubled int16 weight block and each row's
// multiplier, round_offset and exponent, int32 words. nullopt unless the bias
// (input `bias_input`) is constant or absent, the clamp is [-128, 127] and every
// row has the short requantization (exponent in [1, 22], |bias| + taps * 255 * 128
// < 2^30) or a constant output (s8_constant_output: stored as weights 0,
// multiplier 0, round_offset 2 * y, exponent 1); the caller then keeps the int16 form.
// S8Pack::Depthwise: the form of kiln_depthwise_conv2d_s8_pk, w given as rows of
// taps per channel; a block's weights are per tap its four channels' values.
// S8Pack::Pairs: the form of kiln_conv2d_s8_pw, blocks of two rows (bias of each
// twice, per four taps k..k+3 each row's taps k, k+2, k+1, k+3, two rows'
// requantization); nullopt also unless rows is even and taps a multiple of 4.
enum class S8Pack { Rows, Depthwise, Pairs };
std::optional<ConstantPtr> s8_packed_blocks(const Node& n, size_t bias_input, const std::vector<int64_t>& w,
                                            int64_t rows, int64_t taps, const S8Quant& q,
                                            S8Pack layout = S8Pack::Rows);
// Scratch of the packed Conv2D / FullyConnected: KILN_S8_PK_COLS columns of
// s8_row_len(taps) int16 (nn_s8.h, KILN_S8_PK_SCRATCH_BYTES), or fewer when the
// kernel never widens more than max_cols at once (a convolution's output row, a
// fully connected layer's rows).
uint64_t s8_packed_scratch_bytes(int64_t taps, int64_t max_cols = INT64_MAX);
// Scratch of kiln_conv2d_s8_pw over `pixels` pixels of in_c channels (in_c % 4
// == 0): KILN_S8_PW_COLS(in_c) columns of in_c int16 (nn_s8.h,
// KILN_S8_PW_SCRATCH_BYTES), or fewer for a smaller image, at least one pair.
uint64_t s8_pair_scratch_bytes(int64_t in_c, int64_t pixels);
// Throws when the int32 accumulator could overflow: |x - zp| <= 255, |w| <= 128.
void check_s8_accumulator(const Node& n, int64_t taps);

// The int8 weights of input `i` as int64 values; throws unless constant int8.
std::vector<int64_t> s8_weights(const Node& n, size_t i);
// Optional int32 bias [channels]; throws naming the node when it is malformed.
void check_s8_bias(const Node& n, size_t i, int64_t channels);

}  // namespace kiln
