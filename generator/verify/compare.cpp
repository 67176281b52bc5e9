#include <cmath>
#include <cstring>
#include <sstream>

#include "verify/verify.h"

namespace kiln {

OutputCheck compare_output(const std::string& name, const Constant& e, const std::vector<uint8_t>& actual,
                           int64_t int_tolerance) {
  OutputCheck c;
  c.name = name;
  if (actual.size() != e.size_bytes()) {
    c.first_mismatch = "got " + std::to_string(actual.size()) + " bytes, expected " + std::to_string(e.size_bytes());
    c.mismatches = 1;
    return c;
  }
  auto got = Constant::from_bytes(e.dtype(), e.shape(), actual);
  const bool fp = dtype_is_float(e.dtype());
  for (int64_t i = 0; i < e.num_elements(); ++i) {
    bool ok;
    double err = 0;
    std::ostringstream why;
    if (fp) {
      double a = got->as_double(i), x = e.as_double(i);
      if (std::isnan(x) || std::isnan(a)) {
        ok = std::isnan(x) && std::isnan(a);
      } else if (std::isinf(x) || std::isinf(a)) {
        ok = a == x;
      } else {
        err = std::fabs(a - x);
        ok = err <= 1e-7 + 1e-3 * std::fabs(x);
      }
      why.precision(9);
      why << "index " << i << ": got " << a << ", expected " << x;
    } else {
      int64_t a = got->as_int64(i), x = e.as_int64(i);
      ok = e.dtype() == DType::Bool ? a == x : (a >= x ? uint64_t(a) - uint64_t(x) : uint64_t(x) - uint64_t(a)) <= uint64_t(int_tolerance);
      err = std::fabs(double(a) - double(x));
      why << "index " << i << ": got " << a << ", expected " << x;
    }
    if (std::isfinite(err)) c.max_abs_error = std::max(c.max_abs_error, err);
    if (!ok) {
      if (c.mismatches == 0) c.first_mismatch = why.str();
      ++c.mismatches;
    }
  }
  c.pass = c.mismatches == 0;
  return c;
}

bool VerifyReport::all_pass() const {
  if (!failure.empty() || cases.empty()) return false;
  for (const auto& c : cases)
    if (!c.pass) return false;
  return true;
}

}  // namespace kiln
