#include "outcome.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace kiln::conformance {

const std::vector<Category>& all_categories() {
  static const std::vector<Category> v = {Category::Pass,  Category::Unsupported, Category::Wrong,
                                          Category::Build, Category::Crash,       Category::Timeout};
  return v;
}

std::string category_name(Category c) {
  switch (c) {
    case Category::Pass: return "PASS";
    case Category::Unsupported: return "unsupported";
    case Category::Wrong: return "wrong";
    case Category::Build: return "build";
    case Category::Crash: return "crash";
    case Category::Timeout: return "timeout";
  }
  return "?";
}

Category parse_category(const std::string& s) {
  for (Category c : all_categories())
    if (category_name(c) == s) return c;
  throw std::invalid_argument("unknown category '" + s + "'");
}

std::string unsupported_kind(const std::string& message) {
  std::string m = message;
  std::transform(m.begin(), m.end(), m.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  auto has = [&](const char* s) { return m.find(s) != std::string::npos; };
  // Order matters: "operator 'X' is not supported" can mention a dtype-free op name.
  if (has("operator '") && has("not supported")) return "op";
  if (has("operator domain") || has("no default-domain")) return "op";
  if (has("data-dependent") || has("data dependent") || has("dynamic") || has("static shape") ||
      has("shape inference failed") || has("no type information") || has("not a constant") ||
      has("must be constant") || has("must be a constant") || has("known at compile time"))
    return "shape";
  if (has("dtype") || has("data type") || has("element type") || has("float16") || has("bfloat16") ||
      has("string") || has("complex") || has("sequence") || has("optional"))
    return "dtype";
  return "other";
}

std::string one_line(const std::string& s, size_t max_chars) {
  std::string out;
  bool space = false;
  for (char c : s) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  if (out.size() > max_chars) out = out.substr(0, max_chars - 3) + "...";
  return out;
}

nlohmann::json to_json(const Outcome& o) {
  return {{"category", category_name(o.category)}, {"kind", o.kind}, {"reason", o.reason}, {"seconds", o.seconds}};
}

Outcome outcome_from_json(const nlohmann::json& j) {
  Outcome o;
  o.category = parse_category(j.at("category").get<std::string>());
  o.kind = j.value("kind", "");
  o.reason = j.value("reason", "");
  o.seconds = j.value("seconds", 0.0);
  return o;
}

}  // namespace kiln::conformance
