// A board Kiln can build and run generated code for, as described by
// boards/<name>/board.json (see docs/boards.md for the schema).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace kiln {

struct Board {
  std::string name, description, kind;  // kind: "qemu" or "host"
  std::filesystem::path dir;
  std::string cc, ar, size_tool;
  std::vector<std::string> cflags, sanitize_flags, ldflags, libs, run;
  std::vector<std::filesystem::path> sources;  // startup, board support, runner
  std::vector<std::string> flash_regions, ram_regions;
};

// Loads boards/<name>/board.json; throws CompileError listing the known boards.
Board load_board(const std::string& name);
std::vector<std::string> board_names();

}  // namespace kiln
