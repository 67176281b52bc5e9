#include "util/quoted.h"

#include <cstdint>

namespace kiln {

namespace {

// The length of the UTF-8 sequence at text[i] and its code point; 0 when the
// bytes there are not a valid, shortest-form sequence.
size_t utf8_sequence(const std::string& text, size_t i, uint32_t& cp) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(text[i + k]); };
  const unsigned char c = b(0);
  size_t n = 0;
  if (c >= 0xC2 && c <= 0xDF) n = 2, cp = c & 0x1Fu;
  else if (c >= 0xE0 && c <= 0xEF) n = 3, cp = c & 0x0Fu;
  else if (c >= 0xF0 && c <= 0xF4) n = 4, cp = c & 0x07u;
  else return 0;
  if (i + n > text.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((b(k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(k) & 0x3Fu);
  }
  const bool overlong = (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000);
  if (overlong || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) return 0;
  return n;
}

// Code points a terminal shows as nothing or that reorder what follows.
bool invisible(uint32_t cp) {
  return (cp >= 0x80 && cp <= 0x9F) || cp == 0xAD || (cp >= 0x200B && cp <= 0x200F) ||
         (cp >= 0x2028 && cp <= 0x202E) || (cp >= 0x2060 && cp <= 0x206F) || cp == 0xFEFF;
}

std::string hex(uint32_t v, int digits) {
  static const char* d = "0123456789abcdef";
  std::string s(size_t(digits), '0');
  for (int k = digits - 1; k >= 0; --k, v >>= 4) s[size_t(k)] = d[v & 15];
  return s;
}

std::string escape(const std::string& text, size_t max, bool quote, bool& cut) {
  std::string out;
  size_t i = 0;
  while (i < text.size() && out.size() < max) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (c == '\\') out += "\\\\";
    else if (quote && c == '\'') out += "\\'";
    else if (c < 0x20 || c == 0x7F) out += "\\x" + hex(c, 2);
    else if (c < 0x80) out += char(c);
    else {
      uint32_t cp = 0;
      const size_t n = utf8_sequence(text, i, cp);
      if (n == 0) {
        out += "\\x" + hex(c, 2);
      } else {
        out += invisible(cp) ? "\\u" + hex(cp, 4) : text.substr(i, n);
        i += n;
        continue;
      }
    }
    ++i;
  }
  cut = i < text.size();
  return out;
}

std::string length_note(const std::string& text) { return " (" + std::to_string(text.size()) + " bytes)"; }

}  // namespace

std::string escaped(const std::string& text, size_t max) {
  bool cut = false;
  const std::string s = escape(text, max, false, cut);
  return cut ? s + "..." + length_note(text) : s;
}

std::string in_quotes(const std::string& text, size_t max) {
  bool cut = false;
  const std::string s = escape(text, max, true, cut);
  return cut ? "'" + s + "...'" + length_note(text) : "'" + s + "'";
}

std::string onnx_message_line(std::string text) {
  for (auto& c : text)
    if (c == '\n' || c == '\r') c = ' ';
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return escaped(text, kMaxOnnxMessageBytes);
}

}  // namespace kiln
