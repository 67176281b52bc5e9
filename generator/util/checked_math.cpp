#include "util/checked_math.h"

#include <algorithm>

#include "util/error.h"

namespace kiln {

namespace {

std::string dims_text(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

[[noreturn]] void overflow(const std::string& what, const std::string& expr) {
  throw CompileError(what + ": " + expr + " overflows 64-bit arithmetic");
}

}  // namespace

int64_t checked_mul(int64_t a, int64_t b, const std::string& what) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) overflow(what, std::to_string(a) + " * " + std::to_string(b));
  return r;
}

int64_t checked_add(int64_t a, int64_t b, const std::string& what) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) overflow(what, std::to_string(a) + " + " + std::to_string(b));
  return r;
}

int64_t checked_sub(int64_t a, int64_t b, const std::string& what) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) overflow(what, std::to_string(a) + " - " + std::to_string(b));
  return r;
}

uint64_t checked_mul_u(uint64_t a, uint64_t b, const std::string& what) {
  uint64_t r;
  if (__builtin_mul_overflow(a, b, &r)) overflow(what, std::to_string(a) + " * " + std::to_string(b));
  return r;
}

uint64_t checked_add_u(uint64_t a, uint64_t b, const std::string& what) {
  uint64_t r;
  if (__builtin_add_overflow(a, b, &r)) overflow(what, std::to_string(a) + " + " + std::to_string(b));
  return r;
}

int64_t checked_elements(const std::vector<int64_t>& dims, const std::string& what) {
  if (int64_t(dims.size()) > kMaxRank)
    throw CompileError(what + ": rank " + std::to_string(dims.size()) + " is above Kiln's limit of " +
                       std::to_string(kMaxRank));
  for (auto d : dims)
    if (d < 0) throw CompileError(what + ": shape " + dims_text(dims) + " has a negative dimension");
  // The product of the non-zero dimensions is held to the limit even when a zero
  // makes the tensor empty: strides and partial products of an accepted shape then
  // never overflow anywhere in the compiler.
  const bool empty = std::find(dims.begin(), dims.end(), 0) != dims.end();
  int64_t nonzero = 1;
  for (auto d : dims) {
    if (d == 0) continue;
    if (__builtin_mul_overflow(nonzero, d, &nonzero) || nonzero > kMaxTensorElements)
      throw CompileError(what + ": shape " + dims_text(dims) +
                         (empty ? " (empty) has non-zero dimensions whose product is above "
                                : " has more than ") +
                         std::to_string(kMaxTensorElements) + (empty ? "" : " elements") +
                         ", Kiln's limit for one tensor");
  }
  return empty ? 0 : nonzero;
}

int64_t checked_tensor_bytes(const std::vector<int64_t>& dims, size_t element_size, const std::string& what) {
  const int64_t n = checked_elements(dims, what);
  const int64_t bytes = n * int64_t(element_size);  // n <= 2^30, element_size <= 16: no overflow
  if (bytes > kMaxTensorBytes)
    throw CompileError(what + ": shape " + dims_text(dims) + " needs " + std::to_string(bytes) +
                       " bytes, more than Kiln's limit of " + std::to_string(kMaxTensorBytes) + " for one tensor");
  return bytes;
}

}  // namespace kiln
