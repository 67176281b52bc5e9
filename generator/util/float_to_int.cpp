#include "util/float_to_int.h"

#include <cmath>

namespace kiln {

int64_t saturated_round(double v) {
  constexpr double kBound = 4611686018427387904.0;  // 2^62
  if (std::isnan(v)) return 0;
  const double r = std::round(v);
  return r >= kBound ? int64_t(1) << 62 : r <= -kBound ? -(int64_t(1) << 62) : int64_t(r);
}

}  // namespace kiln
