// Shared by the int8 kernel tests (s8_*_test.cpp): random int8 data and the numpy
// broadcast of two shapes as the kernels' kiln_broadcast_t (one dimension per
// output dimension, unmerged, so the walk's odometer is exercised too).
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "kiln_kernels.h"

namespace kiln::s8test {

inline std::vector<int8_t> random_int8(std::mt19937& rng, size_t n) {
  std::uniform_int_distribution<int> d(-128, 127);
  std::vector<int8_t> v(n);
  for (auto& e : v) e = static_cast<int8_t>(d(rng));
  return v;
}

inline int64_t elements(const std::vector<int32_t>& s) {
  int64_t n = 1;
  for (int32_t d : s) n *= d;
  return n;
}

// a and b right-aligned against out (same rank as out here: callers pad with 1s).
inline kiln_broadcast_t broadcast_of(const std::vector<int32_t>& a, const std::vector<int32_t>& b,
                                     const std::vector<int32_t>& out) {
  kiln_broadcast_t bc{};
  bc.ndim = static_cast<uint32_t>(out.size());
  int32_t sa = 1, sb = 1;
  for (size_t k = out.size(); k-- > 0;) {
    bc.shape[k] = out[k];
    bc.stride_a[k] = a[k] == 1 ? 0 : sa;
    bc.stride_b[k] = b[k] == 1 ? 0 : sb;
    sa *= a[k];
    sb *= b[k];
  }
  return bc;
}

// Row-major flat index of output multi-index `idx` into an input of shape `s`
// (broadcast dims read index 0): the reference's straightforward addressing.
inline int64_t flat_index(const std::vector<int32_t>& s, const std::vector<int32_t>& idx) {
  int64_t f = 0;
  for (size_t k = 0; k < s.size(); ++k) f = f * s[k] + (s[k] == 1 ? 0 : idx[k]);
  return f;
}

// Advances a multi-index over `shape`; false after the last one.
inline bool next_index(const std::vector<int32_t>& shape, std::vector<int32_t>& idx) {
  for (size_t k = shape.size(); k-- > 0;) {
    if (++idx[k] < shape[k]) return true;
    idx[k] = 0;
  }
  return false;
}

}  // namespace kiln::s8test
