// Makers of WideNum (ir/constant.h), the element type of constant folding: one per
// member, so a value's kind is said where it is made.
#pragma once

#include <cstdint>

#include "ir/constant.h"

namespace kiln {

inline WideNum wide_float(double x) {
  WideNum w;
  w.f = x;
  return w;
}
inline WideNum wide_int(int64_t x) {
  WideNum w;
  w.i = x;
  return w;
}
inline WideNum wide_uint(uint64_t x) {
  WideNum w;
  w.u = x;
  return w;
}

}  // namespace kiln
