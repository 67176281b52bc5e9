#include "emit/c_names.h"

#include <cctype>

namespace kiln {

std::string c_identifier(const std::string& name) {
  std::string out;
  for (unsigned char c : name) out += (std::isalnum(c) != 0) ? char(c) : '_';
  if (out.empty()) out = "t";
  if (std::isdigit(static_cast<unsigned char>(out[0])) != 0) out = "t_" + out;
  return out;
}

std::string c_macro_name(const std::string& name) {
  std::string s = c_identifier(name);
  for (auto& c : s) c = char(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

bool is_c_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0])) != 0) return false;
  for (unsigned char c : s)
    if (std::isalnum(c) == 0 && c != '_') return false;
  return true;
}

std::string CNameTable::unique(const std::string& name) {
  std::string base = c_identifier(name), s = base;
  for (int i = 1; used_.count(s) != 0; ++i) s = base + "_" + std::to_string(i);
  used_.insert(s);
  return s;
}

}  // namespace kiln
