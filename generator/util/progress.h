// Tells a person at a terminal what a long compile or verify is doing.
//
// The pipeline names its stages (progress_stage("planning memory")) and long
// loops report how far they are (progress_fraction); nothing is printed unless a
// ProgressDisplay is alive, and it prints only once the work has taken a
// second, so quick runs and piped output stay as they were. The display is one
// line on stderr, redrawn in place and erased at the end.
#pragma once

#include <cstdint>
#include <string>

namespace kiln {

// The current stage; shown with the time spent so far. "" erases the line (call
// it before printing results).
void progress_stage(const std::string& name);
// How far the current stage is, e.g. the exact planner's share of its budget.
void progress_fraction(uint64_t done, uint64_t total);

// While alive and `enabled`, a thread redraws the line every 200 ms after the
// first second. The CLI enables it when stderr is a terminal and -q is not given.
class ProgressDisplay {
 public:
  explicit ProgressDisplay(bool enabled);
  ~ProgressDisplay();
  ProgressDisplay(const ProgressDisplay&) = delete;
  ProgressDisplay& operator=(const ProgressDisplay&) = delete;

 private:
  bool enabled_;
};

// stderr is a terminal (and TERM is not "dumb").
bool stderr_is_terminal();

}  // namespace kiln
