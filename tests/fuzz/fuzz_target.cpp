// libFuzzer targets (fuzz_compile.h says what one input does). Built twice
// (tests/fuzz/CMakeLists.txt): kiln_fuzz_onnx takes inputs as .onnx files,
// kiln_fuzz_tflite only inputs that carry the TFLite identifier.
//
// A CompileError (or a PlanError for a plan that fits no pool) is the correct answer
// to a bad model; any other exception escapes and aborts, so libFuzzer records it
// as a crash, as it does for a sanitizer report, a timeout or a memory blow-up.
// Built and run by `make fuzz` (tests/fuzz/run_fuzz.sh).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "fuzz_compile.h"
#include "name_mutations.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

// The module oracle compiles and runs accepted modules under KILN_FUZZ_ORACLE_DIR
// (run_fuzz.sh sets it to the format's work folder; else ./kiln-fuzz-oracle).
// KILN_FUZZ_ORACLE_DIR=off keeps to its in-process checks.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* dir = std::getenv("KILN_FUZZ_ORACLE_DIR");
  kiln::fuzz::OracleOptions o;
  o.compile = !(dir && std::strcmp(dir, "off") == 0);
  o.work_dir = dir && *dir ? dir : "kiln-fuzz-oracle";
  kiln::fuzz::set_module_oracle(o);
  return 0;
}

// One mutation in four renames a graph input / output or tensor to a hostile name
// (name_mutations.h); the rest are libFuzzer's byte-level mutations.
extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  if (seed % 4 == 0) {
    std::vector<uint8_t> model(data, data + size);
#ifdef KILN_FUZZ_TFLITE
    const bool ok = kiln::fuzz::mutate_tflite_name(model, seed / 4);
#else
    const bool ok = kiln::fuzz::mutate_onnx_name(model, seed / 4);
#endif
    if (ok && model.size() <= max_size) {
      std::memcpy(data, model.data(), model.size());
      return model.size();
    }
  }
  return LLVMFuzzerMutate(data, size, max_size);
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
#ifdef KILN_FUZZ_TFLITE
  const auto target = kiln::fuzz::Format::Tflite;
#else
  const auto target = kiln::fuzz::Format::Onnx;
#endif
  // -1: not kept in the corpus.
  return kiln::fuzz::compile_input(data, size, target) == kiln::fuzz::Outcome::OtherFormat ? -1 : 0;
}
