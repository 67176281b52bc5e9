#include "emit/c_names.h"

#include <cctype>
#include <cstring>

namespace kiln {

namespace {

// C99's keywords (and the few C11 ones a C99 compiler may still reserve): a model
// value named "int" must not become a struct member named int.
bool is_c_keyword(const std::string& s) {
  static const std::set<std::string> kw = {
      "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern",
      "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return", "short", "signed",
      "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "_Bool",
      "_Complex", "_Imaginary", "_Alignas", "_Alignof", "_Atomic", "_Generic", "_Noreturn", "_Static_assert",
      "_Thread_local", "bool", "true", "false", "NULL"};
  return kw.count(s) != 0;
}

bool c_safe_char(unsigned char c) {
  // (strchr also finds the terminating NUL: a NUL byte must be escaped, never passed.)
  return std::isalnum(c) != 0 || (c != 0 && std::strchr(" _-.:,;+=()[]{}<>#@!~^|&%'$", c) != nullptr);
}

}  // namespace

std::string c_identifier(const std::string& name) {
  std::string out;
  for (unsigned char c : name) out += (std::isalnum(c) != 0) ? char(c) : '_';
  if (out.empty()) out = "t";
  if (std::isdigit(static_cast<unsigned char>(out[0])) != 0) out = "t_" + out;
  return out;
}

std::string c_text(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    // '/' and '*' only where they could open or close a comment with a neighbour.
    const bool comment_pair = (c == '/' && ((i > 0 && text[i - 1] == '*') || (i + 1 < text.size() && text[i + 1] == '*'))) ||
                              (c == '*' && ((i > 0 && text[i - 1] == '/') || (i + 1 < text.size() && text[i + 1] == '/')));
    if ((c_safe_char(c) || c == '/' || c == '*') && !comment_pair) {
      out += char(c);
    } else {
      // Three octal digits: a following digit can never extend the escape.
      const char oct[] = {'\\', char('0' + (c >> 6)), char('0' + ((c >> 3) & 7)), char('0' + (c & 7)), 0};
      out += oct;
    }
  }
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
  // These names stand alone (struct members): a value named "int" becomes "int_".
  std::string base = c_identifier(name);
  if (is_c_keyword(base)) base += "_";
  std::string s = base;
  for (int i = 1; used_.count(s) != 0; ++i) s = base + "_" + std::to_string(i);
  used_.insert(s);
  return s;
}

}  // namespace kiln
