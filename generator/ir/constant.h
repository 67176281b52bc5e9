// An immutable compile-time tensor: dtype, shape and its elements in the exact
// byte layout the target uses (little-endian, row-major, float16 as raw bits).
//
// Storage is reference counted and shared: copying a ConstantPtr never copies
// elements, and a constant's bytes are freed as soon as the last value holding it
// goes away.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ir/dtype.h"

namespace kiln {

class Constant;
using ConstantPtr = std::shared_ptr<const Constant>;

class Constant {
 public:
  Constant(DType dtype, std::vector<int64_t> shape, std::shared_ptr<const std::vector<uint8_t>> bytes);

  // Builders for the common cases (used by the importer, folder and tests).
  static ConstantPtr from_bytes(DType dtype, std::vector<int64_t> shape, std::vector<uint8_t> bytes);
  static ConstantPtr from_floats(std::vector<int64_t> shape, const std::vector<float>& v);
  static ConstantPtr from_int64s(std::vector<int64_t> shape, const std::vector<int64_t>& v);
  // Converts every element (given in double / int64) to `dtype`.
  static ConstantPtr from_doubles(DType dtype, std::vector<int64_t> shape, const std::vector<double>& v);

  DType dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  int64_t num_elements() const;
  size_t size_bytes() const { return bytes_->size(); }
  const uint8_t* data() const { return bytes_->data(); }

  // Element `i` (row-major) widened to double / int64, whatever the dtype.
  double as_double(int64_t i) const;
  int64_t as_int64(int64_t i) const;
  std::vector<int64_t> to_int64s() const;
  std::vector<double> to_doubles() const;

 private:
  DType dtype_;
  std::vector<int64_t> shape_;
  std::shared_ptr<const std::vector<uint8_t>> bytes_;
};

// float16 / bfloat16 <-> float conversions (round to nearest even).
float half_to_float(uint16_t h);
uint16_t float_to_half(float f);
float bfloat16_to_float(uint16_t h);
uint16_t float_to_bfloat16(float f);

}  // namespace kiln
