// The tool's version and the git commit it was built from (cmake/version_info.cmake
// writes their definitions at build time; only the `kiln` executable links them).
#pragma once

namespace kiln {

const char* kiln_version();  // "0.1.0", the project() version in CMakeLists.txt
const char* kiln_commit();   // "1a2b3c4d5e6f", "...-dirty" with uncommitted edits, or "unknown"

}  // namespace kiln
