// tests/conformance/expected_failures.txt: every test that is known not to pass,
// one per line as
//
//   <suite>/<test> | <category> | <reason>
//
// Any test not listed must PASS; a listed test must fail in the listed category
// (the reason is informational: messages may be reworded). Lines starting with
// '#' are comments. The file is written by `kiln_conformance --update`.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "catalog.h"
#include "outcome.h"

namespace kiln::conformance {

struct Expected {
  Category category = Category::Unsupported;
  std::string reason;
};

// Missing file: no expected failures. Throws std::runtime_error for a malformed line.
std::map<std::string, Expected> read_expectations(const std::filesystem::path& file);

void write_expectations(const std::filesystem::path& file, const std::vector<TestEntry>& tests,
                        const std::map<std::string, Outcome>& results);

// One line per test whose outcome differs from the expectation
// ("unexpected pass: node/test_x (listed as wrong: ...)"), in test order.
std::vector<std::string> compare_with_expectations(const std::vector<TestEntry>& tests,
                                                   const std::map<std::string, Outcome>& results,
                                                   const std::map<std::string, Expected>& expected);

}  // namespace kiln::conformance
