// Where the tool finds its own files (templates/, crt/, boards/): $KILN_HOME when
// set, else the installed share folder next to the binary (<prefix>/share/kiln
// for <prefix>/bin/kiln), else the source tree the tool was built from.
#pragma once

#include <filesystem>

namespace kiln {

std::filesystem::path kiln_home();

// crt/kernel_index.txt (which runtime file defines and uses which symbol): in
// kiln_home()/crt when installed, else where the build wrote it. Empty when
// neither exists (then every runtime file counts as needed).
std::filesystem::path kernel_index_file();

}  // namespace kiln
