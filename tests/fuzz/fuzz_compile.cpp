#include "fuzz_compile.h"

#include <cstring>
#include <vector>

#include "driver/compile.h"
#include "planner/planner.h"
#include "util/error.h"

namespace kiln::fuzz {

Outcome compile_input(const uint8_t* data, size_t size, Format target, std::string* error) {
  const bool tflite = size >= 8 && std::memcmp(data + 4, "TFL3", 4) == 0;
  if (tflite != (target == Format::Tflite)) return Outcome::OtherFormat;
  CompileOptions options;
  options.quiet = true;
  // A greedy planner: the exact planners search for seconds, not what is being fuzzed.
  options.memory_planner = "greedy-by-size";
  try {
    compile_model_in_memory(std::vector<uint8_t>(data, data + size), options);
  } catch (const CompileError& e) {
    if (error) *error = e.what();
    return Outcome::Rejected;
  } catch (const planner::PlanError& e) {
    if (error) *error = e.what();
    return Outcome::Rejected;
  }
  return Outcome::Compiled;
}

}  // namespace kiln::fuzz
