#include "fuzz_compile.h"

#include <cctype>
#include <cstring>
#include <set>
#include <stdexcept>
#include <vector>

#include "driver/compile.h"
#include "emit/c_names.h"
#include "planner/planner.h"
#include "util/error.h"

namespace kiln::fuzz {

namespace {

OracleOptions& oracle_options() {
  static OracleOptions o = [] {
    OracleOptions d;
    d.compile = false;
    return d;
  }();
  return o;
}

// The oracle for an accepted model's names: every input's and output's C name is
// an unreserved identifier, unique within its struct after upper-casing (so its
// macros are unique). A breach escapes as a crash.
void check_names(const std::vector<CompiledTensor>& tensors, const char* kind) {
  std::set<std::string> seen;
  for (const auto& t : tensors) {
    if (!is_c_identifier(t.c_name) || is_reserved_c_name(t.c_name))
      throw std::logic_error(std::string("fuzz oracle: ") + kind + " C name '" + t.c_name + "' is reserved or invalid");
    if (!seen.insert(c_macro_name(t.c_name)).second)
      throw std::logic_error(std::string("fuzz oracle: two ") + kind + "s give the macro stem " + c_macro_name(t.c_name));
  }
}

// The oracle for a refusal: one line, no raw control byte, a readable length.
void check_message(const std::string& m) {
  for (unsigned char c : m)
    if (c < 0x20 || c == 0x7f) throw std::logic_error("fuzz oracle: a control byte in the error message");
  if (m.find("\xe2\x80\xae") != std::string::npos || m.size() > 4096)
    throw std::logic_error("fuzz oracle: a U+202E or an overlong (" + std::to_string(m.size()) + " bytes) error message");
}

}  // namespace

void set_module_oracle(const OracleOptions& options) { oracle_options() = options; }

Outcome compile_input(const uint8_t* data, size_t size, Format target, std::string* error) {
  const bool tflite = size >= 8 && std::memcmp(data + 4, "TFL3", 4) == 0;
  if (tflite != (target == Format::Tflite)) return Outcome::OtherFormat;
  CompileOptions options;
  options.quiet = true;
  // A greedy planner: the exact planners search for seconds, not what is being fuzzed.
  options.memory_planner = "greedy-by-size";
  try {
    const CompiledModule m = compile_model_in_memory(std::vector<uint8_t>(data, data + size), options);
    check_names(m.inputs, "input");
    check_names(m.outputs, "output");
    check_accepted_module(m, oracle_options());
  } catch (const CompileError& e) {
    check_message(e.what());
    if (error) *error = e.what();
    return Outcome::Rejected;
  } catch (const planner::PlanError& e) {
    check_message(e.what());
    if (error) *error = e.what();
    return Outcome::Rejected;
  }
  return Outcome::Compiled;
}

}  // namespace kiln::fuzz
