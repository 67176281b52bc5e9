// Running an external program (compiler, QEMU, the host runner) with a timeout,
// capturing its output. No shell is involved: arguments are passed as they are.
#pragma once

#include <string>
#include <vector>

namespace kiln {

struct ProcessResult {
  int exit_code = -1;      // the program's exit status; -1 if it did not exit normally
  bool timed_out = false;  // killed after the timeout
  std::string output;      // stdout (and stderr, when merged)
  std::string error;       // stderr when not merged
};

// Runs argv[0] (searched in PATH). timeout_s <= 0: no timeout.
ProcessResult run_process(const std::vector<std::string>& argv, double timeout_s, bool merge_stderr = true);

// "cc -O2 x.c" for messages.
std::string command_line(const std::vector<std::string>& argv);

}  // namespace kiln
