// Turning model names (tensor names, pool names) into C identifiers and macro
// names for the generated code.
#pragma once

#include <set>
#include <string>

namespace kiln {

// "conv1/out:0" -> "conv1_out_0"; a leading digit gets a "t_" prefix; empty -> "t".
std::string c_identifier(const std::string& name);
// Upper-cased c_identifier: "sram" -> "SRAM".
std::string c_macro_name(const std::string& name);
// True when `s` is already a valid C identifier (module names must be).
bool is_c_identifier(const std::string& s);

// Hands out unique identifiers: a second "x" becomes "x_1".
class CNameTable {
 public:
  std::string unique(const std::string& name);

 private:
  std::set<std::string> used_;
};

}  // namespace kiln
