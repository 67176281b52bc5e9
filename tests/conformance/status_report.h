// tests/conformance/STATUS.md: the generated summary of a full conformance run
// (totals per category and suite, the float32-only node subset, a per-op table,
// and every test that does not pass, with its reason).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "catalog.h"
#include "outcome.h"

namespace kiln::conformance {

struct RunInfo {
  std::string board = "host";
  std::string flags;        // the compiler flags of the image
  int jobs = 1;
  double wall_seconds = 0;
  std::string command;      // how to reproduce
};

std::string status_markdown(const std::vector<TestEntry>& tests, const std::map<std::string, Outcome>& results,
                            const RunInfo& info);

// "node: 412/932 PASS (44.2%)" lines for the console, incl. the float32-only node subset.
std::string summary_lines(const std::vector<TestEntry>& tests, const std::map<std::string, Outcome>& results);

}  // namespace kiln::conformance
