#include "ir/constant.h"

#include <cmath>
#include <cstring>
#include <stdexcept>

namespace kiln {

namespace {
int64_t product(const std::vector<int64_t>& s) {
  int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}

template <typename T>
T load(const uint8_t* p, int64_t i) {
  T v;
  std::memcpy(&v, p + i * int64_t(sizeof(T)), sizeof(T));
  return v;
}

template <typename T>
void store(std::vector<uint8_t>& b, int64_t i, T v) {
  std::memcpy(b.data() + i * int64_t(sizeof(T)), &v, sizeof(T));
}
}  // namespace

Constant::Constant(DType dtype, std::vector<int64_t> shape, std::shared_ptr<const std::vector<uint8_t>> bytes)
    : dtype_(dtype), shape_(std::move(shape)), bytes_(std::move(bytes)) {
  if (bytes_->size() != size_t(product(shape_)) * dtype_size(dtype_))
    throw std::logic_error("Constant: byte size does not match shape and dtype");
}

ConstantPtr Constant::from_bytes(DType dtype, std::vector<int64_t> shape, std::vector<uint8_t> bytes) {
  return std::make_shared<Constant>(dtype, std::move(shape),
                                    std::make_shared<const std::vector<uint8_t>>(std::move(bytes)));
}

ConstantPtr Constant::from_floats(std::vector<int64_t> shape, const std::vector<float>& v) {
  std::vector<uint8_t> b(v.size() * 4);
  std::memcpy(b.data(), v.data(), b.size());
  return from_bytes(DType::Float32, std::move(shape), std::move(b));
}

ConstantPtr Constant::from_int64s(std::vector<int64_t> shape, const std::vector<int64_t>& v) {
  std::vector<uint8_t> b(v.size() * 8);
  std::memcpy(b.data(), v.data(), b.size());
  return from_bytes(DType::Int64, std::move(shape), std::move(b));
}

ConstantPtr Constant::from_doubles(DType dtype, std::vector<int64_t> shape, const std::vector<double>& v) {
  std::vector<uint8_t> b(v.size() * dtype_size(dtype));
  for (size_t i = 0; i < v.size(); ++i) {
    double x = v[i];
    int64_t k = int64_t(i);
    switch (dtype) {
      case DType::Float32: store<float>(b, k, float(x)); break;
      case DType::Float64: store<double>(b, k, x); break;
      case DType::Float16: store<uint16_t>(b, k, float_to_half(float(x))); break;
      case DType::BFloat16: store<uint16_t>(b, k, float_to_bfloat16(float(x))); break;
      case DType::Int8: store<int8_t>(b, k, int8_t(x)); break;
      case DType::UInt8: store<uint8_t>(b, k, uint8_t(x)); break;
      case DType::Int16: store<int16_t>(b, k, int16_t(x)); break;
      case DType::UInt16: store<uint16_t>(b, k, uint16_t(x)); break;
      case DType::Int32: store<int32_t>(b, k, int32_t(x)); break;
      case DType::UInt32: store<uint32_t>(b, k, uint32_t(x)); break;
      case DType::Int64: store<int64_t>(b, k, int64_t(x)); break;
      case DType::UInt64: store<uint64_t>(b, k, uint64_t(x)); break;
      case DType::Bool: store<uint8_t>(b, k, x != 0.0 ? 1 : 0); break;
      default: throw std::logic_error("Constant::from_doubles: unsupported dtype " + dtype_name(dtype));
    }
  }
  return from_bytes(dtype, std::move(shape), std::move(b));
}

int64_t Constant::num_elements() const { return product(shape_); }

double Constant::as_double(int64_t i) const {
  const uint8_t* p = data();
  switch (dtype_) {
    case DType::Float32: return load<float>(p, i);
    case DType::Float64: return load<double>(p, i);
    case DType::Float16: return half_to_float(load<uint16_t>(p, i));
    case DType::BFloat16: return bfloat16_to_float(load<uint16_t>(p, i));
    case DType::UInt64: return double(load<uint64_t>(p, i));
    default: return double(as_int64(i));
  }
}

int64_t Constant::as_int64(int64_t i) const {
  const uint8_t* p = data();
  switch (dtype_) {
    case DType::Int8: return load<int8_t>(p, i);
    case DType::UInt8: case DType::Bool: return load<uint8_t>(p, i);
    case DType::Int16: return load<int16_t>(p, i);
    case DType::UInt16: return load<uint16_t>(p, i);
    case DType::Int32: return load<int32_t>(p, i);
    case DType::UInt32: return load<uint32_t>(p, i);
    case DType::Int64: return load<int64_t>(p, i);
    case DType::UInt64: return int64_t(load<uint64_t>(p, i));
    default: return int64_t(as_double(i));
  }
}

std::vector<int64_t> Constant::to_int64s() const {
  std::vector<int64_t> r(static_cast<size_t>(num_elements()));
  for (int64_t i = 0; i < num_elements(); ++i) r[size_t(i)] = as_int64(i);
  return r;
}

std::vector<double> Constant::to_doubles() const {
  std::vector<double> r(static_cast<size_t>(num_elements()));
  for (int64_t i = 0; i < num_elements(); ++i) r[size_t(i)] = as_double(i);
  return r;
}

float half_to_float(uint16_t h) {
  uint32_t sign = uint32_t(h >> 15) << 31;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ff;
  uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: value = mant * 2^-24
      float f = std::ldexp(float(mant), -24);
      return sign ? -f : f;
    }
  } else {
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t float_to_half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint16_t sign = uint16_t((x >> 16) & 0x8000);
  uint32_t absx = x & 0x7fffffffu;
  if (absx >= 0x7f800000u) return uint16_t(sign | 0x7c00 | (absx > 0x7f800000u ? 0x200 : 0));  // inf/nan
  if (absx >= 0x477ff000u) return uint16_t(sign | 0x7c00);  // rounds to >= 65520: overflow to inf
  if (absx < 0x38800000u) {  // below the smallest normal half: subnormal or zero
    float a;
    std::memcpy(&a, &absx, 4);
    float scaled = a * 16777216.0f;  // a / 2^-24, exact in float
    uint32_t m = uint32_t(std::nearbyint(scaled));  // round to nearest even (default mode)
    return uint16_t(sign | m);
  }
  uint32_t exp = (absx >> 23) - 112;
  uint32_t mant = absx & 0x7fffff;
  uint32_t h = (exp << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (h & 1))) ++h;  // carries into exponent correctly
  return uint16_t(sign | h);
}

float bfloat16_to_float(uint16_t h) {
  uint32_t bits = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t float_to_bfloat16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return uint16_t((x >> 16) | 0x40);  // quiet NaN
  uint32_t lsb = (x >> 16) & 1;
  x += 0x7fff + lsb;
  return uint16_t(x >> 16);
}

}  // namespace kiln
