#include "verify/board.h"

#include <algorithm>
#include <fstream>

#include <nlohmann/json.hpp>

#include "util/error.h"
#include "util/paths.h"
#include "util/quoted.h"

namespace kiln {

namespace fs = std::filesystem;

std::vector<std::string> board_names() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(kiln_home() / "boards", ec))
    if (fs::exists(e.path() / "board.json")) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

Board load_board(const std::string& name) {
  fs::path dir = kiln_home() / "boards" / name;
  std::ifstream in(dir / "board.json");
  if (name.empty() || name.find('/') != std::string::npos || !in) {
    std::string known;
    for (const auto& n : board_names()) known += (known.empty() ? "" : ", ") + n;
    throw CompileError("--board " + in_quotes(name) + " is not a known board (known: " + known + ")");
  }
  nlohmann::json j;
  try {
    in >> j;
  } catch (const std::exception& e) {
    throw CompileError((dir / "board.json").string() + ": " + e.what());
  }
  auto subst = [&](std::string s) {
    for (size_t p; (p = s.find("{board_dir}")) != std::string::npos;) s.replace(p, 11, dir.string());
    return s;
  };
  auto strings = [&](const char* key) {
    std::vector<std::string> v;
    if (j.contains(key))
      for (const auto& x : j[key]) v.push_back(subst(x.get<std::string>()));
    return v;
  };
  Board b;
  b.name = j.value("name", name);
  b.description = j.value("description", "");
  b.kind = j.value("kind", "qemu");
  b.dir = dir;
  b.cc = j.value("cc", "cc");
  b.ar = j.value("ar", "ar");
  b.size_tool = j.value("size", "");
  b.cflags = strings("cflags");
  b.sanitize_flags = strings("sanitize_flags");
  b.ldflags = strings("ldflags");
  b.libs = strings("libs");
  b.run = strings("run");
  for (const auto& s : strings("sources")) b.sources.push_back(fs::path(s).lexically_normal());
  if (j.contains("memory")) {
    for (const auto& x : j["memory"].value("flash", nlohmann::json::array())) b.flash_regions.push_back(x);
    for (const auto& x : j["memory"].value("ram", nlohmann::json::array())) b.ram_regions.push_back(x);
  }
  return b;
}

}  // namespace kiln
