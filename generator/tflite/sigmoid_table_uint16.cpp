#include "tflite/sigmoid_table_uint16.h"

#include <algorithm>
#include <cmath>

namespace kiln::tflite {

namespace {
double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
}  // namespace

std::array<uint16_t, 256> sigmoid_table_uint16() {
  constexpr double kStep = 1.0 / 24.0;  // the table covers sigmoid on [0, 256/24)
  std::array<uint16_t, 256> table{};
  for (int i = 0; i < 256; ++i) {
    const double x = i * kStep;
    double v = sigmoid(x);
    if (i < 255) {
      // Linear interpolation from x to x + step undershoots the concave sigmoid at
      // the interval's middle by this much; half of it moves the entry up.
      const double chord_middle = (sigmoid(x) + sigmoid(x + kStep)) / 2.0;
      v += (sigmoid(x + kStep / 2.0) - chord_middle) / 2.0;
    } else {
      v = 1.0;
    }
    table[i] = uint16_t(std::min(65535.0, std::round(65536.0 * v)));
  }
  return table;
}

}  // namespace kiln::tflite
