#include "util/paths.h"

#include <cstdlib>

namespace kiln {

std::filesystem::path kiln_home() {
  if (const char* env = std::getenv("KILN_HOME"); env != nullptr && *env != '\0') return env;
  return KILN_SOURCE_DIR;
}

}  // namespace kiln
