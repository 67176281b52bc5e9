// Float-to-integer conversions of numbers a model controls. Converting a float
// that is out of an integer type's range (inf, NaN, 1e30) is undefined behaviour
// in C++, and a float computed from a model's values (a bound divided by a denormal
// quantization scale) can be any of those.
#pragma once

#include <cstdint>

namespace kiln {

// std::round(v) as an integer, saturated to +-2^62 (NaN gives 0).
int64_t saturated_round(double v);

}  // namespace kiln
