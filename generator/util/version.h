// The tool's version and the git commit it was built from (cmake/version_info.cmake
// writes their definitions at build time into the `kiln` executable).
#pragma once

#include <string>

namespace kiln {

const char* kiln_version();  // "0.1.0", the project() version in CMakeLists.txt
const char* kiln_commit();   // "1a2b3c4d5e6f", "...-dirty" with uncommitted edits, or "unknown"

// "kiln 0.1.0 (commit 1a2b3c4d5e6f)": the first line of `kiln --version`, and what
// every generated file and the MLF metadata name as their generator.
std::string kiln_identity();

}  // namespace kiln
