// Runs child processes, at most `jobs` at a time, each with its own wall-clock
// limit (the whole process group is killed when it is exceeded). Single-threaded:
// fork/exec, then waitpid polling.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace kiln::conformance {

struct ChildSpec {
  std::vector<std::string> argv;
  std::string log_file;  // stdout and stderr go here
  double timeout_s = 0;  // <= 0: none
};

struct ChildResult {
  int exit_code = -1;  // -1 when killed by a signal or the timeout
  int signal = 0;      // the signal that ended it (0 if it exited)
  bool timed_out = false;
  double seconds = 0;
};

// Runs every spec; calls done(index, result) as each one finishes (in finishing order).
void run_children(const std::vector<ChildSpec>& specs, int jobs,
                  const std::function<void(size_t, const ChildResult&)>& done);

}  // namespace kiln::conformance
