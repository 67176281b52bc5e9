// Turning model names (tensor names, pool names) into C identifiers and macro
// names for the generated code. The rule (docs/user-guide.md, "Names in the
// generated C"): every identifier is a valid C identifier that C and C++ do not
// reserve (no C or C++ keyword, no leading "__" or "_" + capital, no name the
// standard headers define, no kiln_ / KILN_ prefix), and unique in its namespace
// after upper-casing, so its macros are unique too; a collision gets "_1", "_2"...
// in the order the names come. The original name stays in comments (c_text) and
// in the descriptor.
#pragma once

#include <set>
#include <string>

namespace kiln {

// "conv1/out:0" -> "conv1_out_0"; a leading digit gets a "t_" prefix; empty -> "t".
// Only sanitized: a CNameTable makes it unreserved and unique.
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
// True when a generated identifier may not be `s`: a C or C++ keyword, a name
// <stdint.h>, <stddef.h>, <limits.h>, <float.h> or <math.h> defines, a
// predefined macro, a reserved spelling ("__x", "_X") or Kiln's own prefix.
bool is_reserved_c_name(const std::string& s);

// Hands out unique identifiers that stand alone (struct members, pool arrays) and
// the macro stems made from them (c_macro_name of the identifier): "x" then "X"
// become "x" and "X_1" (macros X and X_1); a reserved "int" becomes "int_", a
// reserved spelling "__LINE__" becomes "t__LINE__".
class CNameTable {
 public:
  std::string unique(const std::string& name);

 private:
  std::set<std::string> used_;  // upper-cased: unique as macros too
};

}  // namespace kiln
