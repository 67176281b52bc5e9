#include "lower/ops/f32_packing.h"

#include <vector>

namespace kiln {

namespace {

// rows x k values read through `at(row, r)` into blocks of four rows.
template <typename At>
std::vector<float> blocks(int64_t groups, int64_t rows, int64_t k, At at) {
  const int64_t per_group = (rows + 3) / 4 * 4 * k;
  std::vector<float> v(size_t(groups * per_group), 0.0f);
  for (int64_t g = 0; g < groups; ++g)
    for (int64_t row = 0; row < rows; ++row)
      for (int64_t r = 0; r < k; ++r)
        v[size_t(g * per_group + (row / 4) * 4 * k + r * 4 + row % 4)] = at(g * rows + row, r);
  return v;
}

}  // namespace

ConstantPtr pack_f32_gemm_blocks(const Constant& w, int64_t groups, int64_t rows, int64_t k) {
  auto v = blocks(groups, rows, k, [&](int64_t row, int64_t r) { return float(w.as_double(row * k + r)); });
  const int64_t count = int64_t(v.size());
  return Constant::from_floats({count}, v);
}

ConstantPtr pack_f32_gemm_blocks_transposed(const Constant& b, int64_t k, int64_t n) {
  auto v = blocks(1, n, k, [&](int64_t row, int64_t r) { return float(b.as_double(r * n + row)); });
  const int64_t count = int64_t(v.size());
  return Constant::from_floats({count}, v);
}

ConstantPtr pack_f32_depthwise3x3(const Constant& w, const Constant* bias, int64_t channels) {
  std::vector<float> v(size_t(channels * 10), 0.0f);
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t t = 0; t < 9; ++t) v[size_t(c * 10 + t)] = float(w.as_double(c * 9 + t));
    v[size_t(c * 10 + 9)] = bias ? float(bias->as_double(c)) : 0.0f;
  }
  return Constant::from_floats({channels * 10}, v);
}

}  // namespace kiln
