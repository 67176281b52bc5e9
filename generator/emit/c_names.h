// Turning model names (tensor names, pool names) into C identifiers and macro
// names for the generated code.
#pragma once

#include <set>
#include <string>

namespace kiln {

// "conv1/out:0" -> "conv1_out_0"; a leading digit gets a "t_" prefix; empty -> "t".
std::string c_identifier(const std::string& name);
// Text that is safe both inside a C string literal and inside a /* */ comment, and
// keeps its value in a string literal: every byte outside a plain printable set
// (quotes, backslashes, '?' of trigraphs, newlines, non-ASCII) and any '/' or '*'
// that touches the other becomes a three-digit octal escape. "a\"b*/" ->
// "a\042b\052\057". Templates insert every {{value}} through it (emit/template_engine.h).
std::string c_text(const std::string& text);
// Upper-cased c_identifier: "sram" -> "SRAM".
std::string c_macro_name(const std::string& name);
// True when `s` is already a valid C identifier (module names must be).
bool is_c_identifier(const std::string& s);

// Hands out unique identifiers that stand alone (struct members, pool arrays): a
// second "x" becomes "x_1", a C keyword "int" becomes "int_".
class CNameTable {
 public:
  std::string unique(const std::string& name);

 private:
  std::set<std::string> used_;
};

}  // namespace kiln
