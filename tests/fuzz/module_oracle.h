// The oracle for an accepted model (issue 28): what Kiln emits must be C that
// builds and runs. Given the text of a module's files (CompiledModule::files,
// which compile_model_in_memory keeps):
//
//  - in-process, for every accepted model: every byte of every file is printable
//    ASCII, a tab or a newline (model text reaches the C only escaped); every macro
//    is #defined once across the files (a default under `#ifndef NAME` aside);
//    every macro name is an identifier under Kiln's prefix KILN_;
//  - with the host C compiler, once per *structure*: every source compiled with
//    `-std=c99 -Wall -Wextra -Werror` (and the host board's ASan/UBSan flags), and
//    for a small module linked with the runtime and run once on deterministic
//    inputs under ASan/UBSan (through kiln verify's machinery, generator/verify/).
//
// The structure of a module is its text with every numeric literal replaced by
// its class (zero, within int32, past int32, float, unusual) and runs of array
// elements folded, so a mutant that only changes shapes, offsets or constant bytes
// is not compiled again; names, operators, dtypes, the sign of a number and its
// class are structure. A module holding an unusual literal (an integer of 2^63 or
// more, a denormal or out-of-range float) is compiled every time. docs/robustness.md says what is and
// is not compiled. A breach throws std::logic_error (a crash for libFuzzer).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

#include "emit/compiled_module.h"

namespace kiln::fuzz {

using ModuleFiles = std::map<std::string, std::string>;

// The in-process checks above; throws std::logic_error naming the breach.
void check_module_text(const ModuleFiles& files);

// The structure key of `text` (see above); *unusual is set when a literal is of
// the unusual class.
std::string module_structure(const ModuleFiles& files, bool* unusual);

// Whether a module is small enough to be run: few operator calls, and its pools
// (constants and workspace) under 256 KiB.
bool small_enough_to_run(const CompiledModule& m);

struct OracleOptions {
  // Scratch folders, the runtime objects' cache and the set of structures seen
  // (one file per structure, so that libFuzzer's fork-mode workers share it).
  std::filesystem::path work_dir;
  std::filesystem::path crt_cache_dir;  // the runtime's objects; empty: work_dir/crt-cache
  bool compile = true;     // false: the in-process checks only
  double timeout_s = 60;   // of one run of the module
};

// What the oracle did with one module (for tests and the fuzz log).
enum class OracleAction { TextOnly, SeenBefore, Compiled, CompiledAndRan };

// Every check above on an accepted module; throws std::logic_error on a breach,
// with the compiler's or the sanitizer's output.
OracleAction check_accepted_module(const CompiledModule& m, const OracleOptions& options);

}  // namespace kiln::fuzz
