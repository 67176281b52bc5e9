// The one error type the compiler throws for bad input. The CLI catches it,
// prints "kiln: error: <message>" on one line and exits non-zero.
#pragma once

#include <stdexcept>
#include <string>

namespace kiln {

class CompileError : public std::runtime_error {
 public:
  explicit CompileError(const std::string& msg) : std::runtime_error(msg) {}
};

}  // namespace kiln
