// What one fuzz input does: an arbitrary byte string as a model through the whole
// pipeline (import, fold, lower, bufferize, plan, emit), in memory, writing no file.
// Shared by the libFuzzer targets (fuzz_target.cpp, `make fuzz`) and by
// fuzz_harness_test.cpp in the ordinary build, which checks that valid models get
// through every stage with the harness's options (a harness that rejects every
// input at one stage fuzzes nothing after it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "module_oracle.h"

namespace kiln::fuzz {

enum class Format { Onnx, Tflite };

enum class Outcome {
  OtherFormat,  // the input is the other format's: not this target's to try
  Rejected,     // a clear CompileError / PlanError: the right answer to a bad model
  Compiled,     // the whole pipeline ran, C emitted in memory
};

// Any exception other than a CompileError / PlanError escapes (libFuzzer records
// it as a crash). `error`, when given, receives the rejection's message. An
// accepted module goes through the module oracle (module_oracle.h) with the
// options of set_module_oracle: by default its in-process checks only.
Outcome compile_input(const uint8_t* data, size_t size, Format target, std::string* error = nullptr);

// The oracle's options for every later compile_input (the fuzz targets turn the
// host compiler on, under their work folder).
void set_module_oracle(const OracleOptions& options);

}  // namespace kiln::fuzz
