#include "expectations.h"

#include <fstream>
#include <stdexcept>

namespace kiln::conformance {

namespace fs = std::filesystem;

namespace {

std::string trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return "";
  size_t b = s.find_last_not_of(" \t\r");
  return s.substr(a, b - a + 1);
}

}  // namespace

std::map<std::string, Expected> read_expectations(const fs::path& file) {
  std::map<std::string, Expected> out;
  std::ifstream in(file);
  if (!in) return out;
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    std::string t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    size_t a = t.find(" | ");
    size_t b = a == std::string::npos ? a : t.find(" | ", a + 3);
    std::string where = file.string() + ":" + std::to_string(lineno);
    if (b == std::string::npos) throw std::runtime_error(where + ": expected '<suite>/<test> | <category> | <reason>'");
    Expected e;
    try {
      e.category = parse_category(trim(t.substr(a + 3, b - a - 3)));
    } catch (const std::exception& ex) {
      throw std::runtime_error(where + ": " + ex.what());
    }
    if (e.category == Category::Pass) throw std::runtime_error(where + ": a passing test is not an expected failure");
    e.reason = trim(t.substr(b + 3));
    std::string id = trim(t.substr(0, a));
    if (!out.emplace(id, e).second) throw std::runtime_error(where + ": '" + id + "' is listed twice");
  }
  return out;
}

void write_expectations(const fs::path& file, const std::vector<TestEntry>& tests,
                        const std::map<std::string, Outcome>& results) {
  std::ofstream out(file);
  if (!out) throw std::runtime_error("cannot write '" + file.string() + "'");
  out << "# ONNX backend tests that Kiln is known not to pass, with the category and the reason\n"
         "# of the last full run. Generated: rewrite with `make conformance-update` (or\n"
         "# kiln_conformance --update), do not edit by hand. Any test not listed here must\n"
         "# pass; a listed test must fail in the listed category, or the conformance ctest fails.\n"
         "# <suite>/<test> | <category> | <reason>\n";
  for (const auto& t : tests) {
    auto it = results.find(t.id());
    if (it == results.end() || it->second.category == Category::Pass) continue;
    std::string reason = it->second.reason.empty() ? "-" : it->second.reason;
    out << t.id() << " | " << category_name(it->second.category) << " | " << reason << "\n";
  }
}

std::vector<std::string> compare_with_expectations(const std::vector<TestEntry>& tests,
                                                   const std::map<std::string, Outcome>& results,
                                                   const std::map<std::string, Expected>& expected) {
  std::vector<std::string> diffs;
  for (const auto& t : tests) {
    auto r = results.find(t.id());
    if (r == results.end()) continue;
    auto e = expected.find(t.id());
    const Outcome& o = r->second;
    if (e == expected.end()) {
      if (o.category != Category::Pass)
        diffs.push_back("unexpected failure: " + t.id() + " is " + category_name(o.category) + ": " + o.reason);
    } else if (o.category == Category::Pass) {
      diffs.push_back("unexpected pass: " + t.id() + " (listed as " + category_name(e->second.category) + ": " +
                      e->second.reason + ")");
    } else if (o.category != e->second.category) {
      diffs.push_back("unexpected " + category_name(o.category) + ": " + t.id() + ": " + o.reason + " (listed as " +
                      category_name(e->second.category) + ": " + e->second.reason + ")");
    }
  }
  return diffs;
}

}  // namespace kiln::conformance
