// The 256-entry table behind TFLite's int16 sigmoid and tanh (the gates of TFLite
// Micro's integer LSTM): entry i is sigmoid(i / 24) in unsigned Q0.16, which the
// kernel interpolates linearly between neighbours. The entries are not the plain
// rounded sigmoid (that differs from TFLite's in 44 places): each is shifted by half
// the error that linear interpolation makes at the middle of its interval, so the
// interpolated curve sits evenly around sigmoid; the last entry is the Q0.16
// maximum. Computed this way, the table equals TFLite's entry for entry (checked
// against it when this was written); tests/tflite/tflite_int_ref.py computes it
// independently in Python.
#pragma once

#include <array>
#include <cstdint>

namespace kiln::tflite {

std::array<uint16_t, 256> sigmoid_table_uint16();

}  // namespace kiln::tflite
