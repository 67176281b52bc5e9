#include "emit/c_names.h"

#include <cctype>
#include <cstring>

namespace kiln {

namespace {

// C99's and C11's keywords, and C++'s (metadata.h is included from C++ too): a
// model value named "int" or "class" must not become a struct member named so.
bool is_keyword(const std::string& s) {
  static const std::set<std::string> kw = {
      "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern",
      "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return", "short", "signed",
      "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "bool",
      "true", "false", "alignas", "alignof", "asm", "catch", "char16_t", "char32_t", "char8_t", "class", "concept",
      "consteval", "constexpr", "constinit", "const_cast", "co_await", "co_return", "co_yield", "decltype", "delete",
      "dynamic_cast", "explicit", "export", "friend", "mutable", "namespace", "new", "noexcept", "nullptr",
      "operator", "private", "protected", "public", "reinterpret_cast", "requires", "static_assert",
      "static_cast", "template", "this", "thread_local", "throw", "try", "typeid", "typename", "using", "virtual",
      "wchar_t", "and", "and_eq", "bitand", "bitor", "compl", "not", "not_eq", "or", "or_eq", "xor", "xor_eq"};
  return kw.count(s) != 0;
}

// The names the standard headers the generated code may see define: the macros
// and types of <stdint.h>, <stddef.h>, <limits.h>, <float.h> and <math.h>, and the
// predefined macros without a leading "__" (those are reserved spellings anyway).
// A struct member named INT32_MAX is macro-expanded. <math.h>'s functions (sin,
// tanh) are not here: a library may define them only as function-like macros
// (C99 7.1.4), which a member name, never followed by '(', does not invoke; so a
// model output named "tanh" keeps its name and its module stays as it was.
bool is_standard_name(const std::string& s) {
  static const std::set<std::string> names = [] {
    std::set<std::string> n = {
        // <stddef.h>, <limits.h>, the rest of <stdint.h>
        "NULL", "offsetof", "ptrdiff_t", "size_t", "max_align_t", "CHAR_BIT", "SCHAR_MIN", "SCHAR_MAX",
        "UCHAR_MAX", "CHAR_MIN", "CHAR_MAX", "MB_LEN_MAX", "SHRT_MIN", "SHRT_MAX", "USHRT_MAX", "INT_MIN",
        "INT_MAX", "UINT_MAX", "LONG_MIN", "LONG_MAX", "ULONG_MAX", "LLONG_MIN", "LLONG_MAX", "ULLONG_MAX",
        "intptr_t", "uintptr_t", "intmax_t", "uintmax_t", "INTPTR_MIN", "INTPTR_MAX", "UINTPTR_MAX", "INTMAX_MIN",
        "INTMAX_MAX", "UINTMAX_MAX", "INTMAX_C", "UINTMAX_C", "PTRDIFF_MIN", "PTRDIFF_MAX", "SIG_ATOMIC_MIN",
        "SIG_ATOMIC_MAX", "SIZE_MAX", "WCHAR_MIN", "WCHAR_MAX", "WINT_MIN", "WINT_MAX",
        // <float.h>
        "FLT_RADIX", "DECIMAL_DIG", "FLT_EVAL_METHOD", "FLT_ROUNDS",
        // <math.h>
        "float_t", "double_t", "HUGE_VAL", "HUGE_VALF", "HUGE_VALL", "INFINITY", "NAN", "FP_INFINITE", "FP_NAN",
        "FP_NORMAL", "FP_SUBNORMAL", "FP_ZERO", "FP_FAST_FMA", "FP_FAST_FMAF", "FP_FAST_FMAL", "FP_ILOGB0",
        "FP_ILOGBNAN", "MATH_ERRNO", "MATH_ERREXCEPT", "math_errhandling", "fpclassify", "isfinite", "isinf",
        "isnan", "isnormal", "signbit", "isgreater", "isgreaterequal", "isless", "islessequal", "islessgreater",
        "isunordered",
        // predefined and often-predefined macros, the assert / errno pair
        "assert", "errno", "EOF", "unix", "linux", "i386"};
    for (const char* w : {"8", "16", "32", "64"}) {
      const std::string b = w;
      for (const char* f : {"", "_least", "_fast"}) {
        const std::string F = f[0] ? std::string(f == std::string("_least") ? "_LEAST" : "_FAST") : "";
        n.insert("int" + std::string(f) + b + "_t");
        n.insert("uint" + std::string(f) + b + "_t");
        n.insert("INT" + F + b + "_MIN");
        n.insert("INT" + F + b + "_MAX");
        n.insert("UINT" + F + b + "_MAX");
      }
      n.insert("INT" + b + "_C");
      n.insert("UINT" + b + "_C");
    }
    for (const char* p : {"FLT", "DBL", "LDBL"})
      for (const char* q : {"MANT_DIG", "DIG", "MIN_EXP", "MIN_10_EXP", "MAX_EXP", "MAX_10_EXP", "MAX", "EPSILON",
                            "MIN", "TRUE_MIN", "DECIMAL_DIG", "HAS_SUBNORM"})
        n.insert(std::string(p) + "_" + q);
    return n;
  }();
  return names.count(s) != 0;
}

// Spellings C and C++ reserve wherever they appear ("__x", "_X"), and Kiln's own
// prefix (kiln_crt.h's KILN_* macros, the kiln_* functions), in any case.
bool is_reserved_spelling(const std::string& s) {
  if (s.size() >= 2 && s[0] == '_' && (s[1] == '_' || std::isupper(static_cast<unsigned char>(s[1])) != 0)) return true;
  if (s.size() >= 5) {
    std::string p = s.substr(0, 5);
    for (auto& c : p) c = char(std::tolower(static_cast<unsigned char>(c)));
    if (p == "kiln_") return true;
  }
  return false;
}

}  // namespace

bool is_reserved_c_name(const std::string& s) {
  return is_keyword(s) || is_standard_name(s) || is_reserved_spelling(s);
}

namespace {

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
  std::string base = c_identifier(name);
  if (is_reserved_spelling(base)) base = "t_" + base.substr(base[0] == '_' ? 1 : 0);
  if (is_keyword(base) || is_standard_name(base)) base += "_";
  // Unique after upper-casing (the macro stems), and no suffixed name reserved.
  std::string s = base;
  for (int i = 1; used_.count(c_macro_name(s)) != 0 || is_reserved_c_name(s); ++i) s = base + "_" + std::to_string(i);
  used_.insert(c_macro_name(s));
  return s;
}

}  // namespace kiln
