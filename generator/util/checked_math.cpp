#include "util/checked_math.h"

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
  int64_t n = 1;
  bool too_big = false;
  for (auto d : dims) {
    if (d < 0) throw CompileError(what + ": shape " + dims_text(dims) + " has a negative dimension");
    if (d > kMaxTensorElements) too_big = true;
  }
  // A zero anywhere makes the tensor empty, whatever the other dimensions say.
  for (auto d : dims)
    if (d == 0) return 0;
  for (auto d : dims) {
    if (too_big || __builtin_mul_overflow(n, d, &n) || n > kMaxTensorElements) {
      throw CompileError(what + ": shape " + dims_text(dims) + " has more than " + std::to_string(kMaxTensorElements) +
                         " elements, Kiln's limit for one tensor");
    }
  }
  return n;
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
