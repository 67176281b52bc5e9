// `kiln verify`'s machinery: test data -> a firmware image for a board (one or
// many compiled modules, many test cases) -> run it -> compare the outputs.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "emit/compiled_module.h"
#include "ir/constant.h"

namespace kiln {

// One ONNX test data set: test_data_set_N/input_K.pb and output_K.pb.
struct TestSet {
  std::filesystem::path dir;
  std::vector<ConstantPtr> inputs, expected;
};

// Reads a data set and checks it against the module's inputs/outputs (count,
// dtype, element count); throws CompileError naming the file on a mismatch.
TestSet read_test_set(const std::filesystem::path& dir, const CompiledModule& module);

struct VerifyCase {
  const CompiledModule* module = nullptr;
  TestSet data;
  std::string name;  // printed in reports (no spaces)
};

struct OutputCheck {
  std::string name;
  double max_abs_error = 0;
  uint64_t mismatches = 0;
  std::string first_mismatch;  // "index 3: got 0.5, expected 0.25"
  bool pass = false;
};

struct CaseResult {
  std::string name;
  bool ran = false;
  int32_t status = 0;
  uint64_t instructions = 0;
  // --profile: instructions of each operator call (step i = module ops[i]); all
  // zero on a board that cannot count. Empty without --profile.
  std::vector<uint64_t> op_instructions;
  std::vector<OutputCheck> outputs;
  std::vector<std::vector<uint8_t>> output_bytes;
  bool pass = false;
};

struct VerifyOptions {
  std::string board = "host";
  std::filesystem::path work_dir;        // firmware sources, objects, image
  // Runtime and board objects per board, flags and source version, shared by
  // runs and processes (empty: work_dir/crt-cache, i.e. no sharing).
  std::filesystem::path crt_cache_dir;
  double timeout_s = 300;
  bool sanitize = true;                  // host board: ASan + UBSan
  bool poison_dead = false;              // build with -DKILN_POISON_DEAD=1
  // Build the module and the runner with -DKILN_PROFILE=1: instructions per
  // operator call (CaseResult::op_instructions). Unprofiled images are unchanged.
  bool profile = false;
  std::vector<std::string> extra_cflags;
  // Integer outputs may differ from the expected ones by up to this much (--int-tolerance):
  // a quantized ONNX model run on integer kernels requantizes in fixed point where
  // ONNX rounds in float (docs/quantization.md).
  int64_t int_tolerance = 0;
};

struct FirmwareSize {
  uint64_t text = 0, data = 0, bss = 0;  // from the board's size tool (QEMU boards)
};

struct VerifyReport {
  std::vector<CaseResult> cases;
  FirmwareSize size;
  std::string failure;  // non-empty when the image did not build or run to the end
  std::string log;      // build/run output for diagnostics
  bool all_pass() const;
};

// Builds one image with every case, runs it, compares. Never throws for a
// failing model (the report says why); throws CompileError for bad options.
VerifyReport run_verify_cases(const std::vector<VerifyCase>& cases, const VerifyOptions& options);

// Builds the runtime and the board's support objects into the cache
// (options.crt_cache_dir) unless they are there already, so that many later
// run_verify_cases calls (possibly in parallel processes) only link them.
// Returns false, with the compiler output in *log, if they do not build.
bool prebuild_runtime(const VerifyOptions& options, std::string* log);

// Where runtime objects are cached by default: $XDG_CACHE_HOME/kiln, else
// ~/.cache/kiln; empty when neither variable is set.
std::filesystem::path default_cache_dir();

// Compares an output against the expected tensor: floats |a-e| <= atol + rtol*|e|
// (rtol 1e-3, atol 1e-7), NaN matches NaN; integers |a-e| <= int_tolerance (exactly
// by default); bool exactly.
OutputCheck compare_output(const std::string& name, const Constant& expected, const std::vector<uint8_t>& actual,
                           int64_t int_tolerance = 0);

}  // namespace kiln
