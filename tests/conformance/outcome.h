// What happened to one conformance test: a category and the one-line reason
// (the compiler's message, the first mismatch, the sanitizer's summary, ...).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kiln::conformance {

enum class Category {
  Pass,
  Unsupported,  // the compiler rejected the model (op, dtype, data-dependent shape, attribute)
  Wrong,        // it ran, but an output (or its shape, or the returned status) differs
  Build,        // the generated C did not compile with -Wall -Wextra -Werror, or did not link
  Crash,        // the compiler or the program died (signal, sanitizer report, internal error)
  Timeout,      // compiling, building or running took longer than the per-test limit
};

const std::vector<Category>& all_categories();
std::string category_name(Category c);  // "PASS", "unsupported", "wrong", "build", "crash", "timeout"
// Parses category_name()'s output; throws std::invalid_argument otherwise.
Category parse_category(const std::string& s);

struct Outcome {
  Category category = Category::Crash;
  // For Unsupported: "op", "dtype", "shape" (data-dependent or dynamic shape), "other".
  std::string kind;
  std::string reason;  // one line
  double seconds = 0;
};

// The compiler's message -> "op" / "dtype" / "shape" / "other" (for the STATUS.md
// breakdown; the message itself is kept verbatim as the reason).
std::string unsupported_kind(const std::string& message);

// Collapses whitespace runs (incl. newlines) to one space and caps the length,
// so that a reason fits on one line of expected_failures.txt and STATUS.md.
std::string one_line(const std::string& s, size_t max_chars = 300);

nlohmann::json to_json(const Outcome& o);
Outcome outcome_from_json(const nlohmann::json& j);

}  // namespace kiln::conformance
