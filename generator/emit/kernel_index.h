// Which runtime files (crt/src/...) a generated module needs.
//
// The index (crt/kernel_index.txt, written at build time by
// cmake/kernel_index.cmake from the host-built runtime objects) says, per runtime
// file, which global symbols it defines and which it uses. A module needs every
// file of crt/src/runtime/, the files defining the kiln_* symbols its own C text
// names, and, transitively, the files those use. Any kernel file added under
// crt/src/ is covered without registering it anywhere.
//
// When the answer cannot be trusted (no index, a symbol the index does not know,
// an indexed file that is not in the runtime tree) every runtime file is needed:
// slower to build, never a missing symbol.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace kiln {

class KernelIndex {
 public:
  // Reads `index_file`; an empty path or a missing file gives an empty index.
  static KernelIndex load(const std::filesystem::path& index_file);
  // Parses the index text ("file\tdefined symbols\tused symbols" per line).
  static KernelIndex parse(const std::string& text);

  bool empty() const { return files_.empty(); }

  // The runtime files (relative to `crt_dir`, e.g. "src/kernels/conv.c", sorted)
  // that C code naming the identifiers in `module_texts` needs.
  std::vector<std::string> needed_files(const std::filesystem::path& crt_dir,
                                        const std::vector<std::string>& module_texts) const;

 private:
  struct File {
    std::vector<std::string> defines, uses;
  };
  std::map<std::string, File> files_;           // by relative path
  std::map<std::string, std::string> definer_;  // symbol -> relative path
};

// Every .c file under crt_dir/src, relative to crt_dir, sorted.
std::vector<std::string> all_runtime_files(const std::filesystem::path& crt_dir);

}  // namespace kiln
