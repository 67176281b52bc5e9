// Where the tool finds its own files (templates/, crt/, boards/): $KILN_HOME when
// set, else the source tree the tool was built from.
#pragma once

#include <filesystem>

namespace kiln {

std::filesystem::path kiln_home();

}  // namespace kiln
