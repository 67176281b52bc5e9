#include "util/paths.h"

#include <cstdlib>
#include <system_error>

namespace kiln {

namespace fs = std::filesystem;

namespace {

// The running binary; empty if the system does not say.
fs::path self_exe() {
  std::error_code ec;
  fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : p;
}

}  // namespace

fs::path kiln_home() {
  if (const char* env = std::getenv("KILN_HOME"); env != nullptr && *env != '\0') return env;
  // Installed: <prefix>/bin/kiln finds <prefix>/share/kiln (docs/user-guide.md).
  fs::path exe = self_exe();
  if (!exe.empty()) {
    fs::path share = exe.parent_path().parent_path() / "share" / "kiln";
    std::error_code ec;
    if (fs::exists(share / "templates", ec) && fs::exists(share / "crt", ec)) return share;
  }
  return KILN_SOURCE_DIR;
}

fs::path kernel_index_file() {
  std::error_code ec;
  fs::path installed = kiln_home() / "crt" / "kernel_index.txt";
  if (fs::exists(installed, ec)) return installed;
  fs::path built = KILN_BUILD_KERNEL_INDEX;
  if (fs::exists(built, ec)) return built;
  return {};
}

}  // namespace kiln
