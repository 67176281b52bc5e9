// libFuzzer targets: an arbitrary byte string as a model through the whole
// pipeline (import, fold, lower, bufferize, plan, emit), in memory, writing no file.
// Built twice (tests/fuzz/CMakeLists.txt): kiln_fuzz_onnx takes inputs as .onnx
// files, kiln_fuzz_tflite only inputs that carry the TFLite identifier.
//
// A CompileError (or a PlanError for a plan that fits no pool) is the correct answer
// to a bad model; any other exception escapes and aborts, so libFuzzer records it
// as a crash, as it does for a sanitizer report, a timeout or a memory blow-up.
// Built and run by `make fuzz` (tests/fuzz/run_fuzz.sh).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "driver/compile.h"
#include "planner/planner.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const bool tflite = size >= 8 && std::memcmp(data + 4, "TFL3", 4) == 0;
#ifdef KILN_FUZZ_TFLITE
  if (!tflite) return -1;  // not kept in the corpus
#else
  if (tflite) return -1;
#endif
  kiln::CompileOptions options;
  options.quiet = true;
  options.memory_planner = "greedy";  // the exact planners search for seconds: not what is being fuzzed
  try {
    kiln::compile_model_in_memory(std::vector<uint8_t>(data, data + size), options);
  } catch (const kiln::CompileError&) {
  } catch (const kiln::planner::PlanError&) {
  }
  return 0;
}
