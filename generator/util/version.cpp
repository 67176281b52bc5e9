#include "util/version.h"

namespace kiln {

std::string kiln_identity() { return std::string("kiln ") + kiln_version() + " (commit " + kiln_commit() + ")"; }

// Only the `kiln` executable links generated/version_info.cpp, whose definitions
// change with every commit: a new commit then relinks one program, not every test.
// Other programs that link kiln_core (the unit tests) get these weak stand-ins; the
// linker prefers the executable's strong definitions wherever they are present.
__attribute__((weak)) const char* kiln_version() { return KILN_PROJECT_VERSION; }
__attribute__((weak)) const char* kiln_commit() { return "unknown"; }

}  // namespace kiln
