// Runs the command line in a child process so that a fault inside a library
// Kiln calls ends as an error that says where it happened, not as a signal.
//
// Kiln validates a model before ONNX's checker, shape inference and version
// converter see it (onnx/node_validation.cpp), but those are ONNX 1.12's code:
// they divide, index and recurse by values they do not check, and a rule Kiln
// has not written yet is a SIGFPE or SIGSEGV for the user. The guard is the net
// under the rules, not a replacement for them: `make fuzz` runs the pipeline
// in-process, so every such fault still surfaces there and gets its rule.
//
// While the child works, FaultScope records what it is doing ("ONNX shape
// inference of Conv 'c'") in memory shared with the parent; after a fatal signal
// the parent reports that place and removes the staging folder the child had
// registered, so a crashed compile leaves nothing behind.
#pragma once

#include <functional>
#include <string>

namespace kiln {

struct GuardedRun {
  int exit_code = 0;  // the child's exit status (when it exited)
  int signal = 0;     // the fatal signal (when it did not)
  std::string where;  // the innermost FaultScope alive at the signal ("" if none)
};

// Runs `body` in a forked child and waits for it. `body`'s return value is the
// child's exit status. Call it before any thread starts (fork copies one thread).
GuardedRun run_guarded(const std::function<int()>& body);

// A signal that means the compiler failed (SIGSEGV, SIGFPE, SIGABRT, SIGKILL from
// the OOM killer...), not one a person or a timeout sent (SIGINT, SIGTERM, ...).
bool is_fault_signal(int signal);

// "internal fault (SIGSEGV, Segmentation fault) in <where>": the one-line message.
std::string describe_fault(const GuardedRun& run);

// Names what the process does until destroyed; scopes nest. Costs a string copy
// into a fixed buffer, and nothing is shared when no guard is running.
class FaultScope {
 public:
  explicit FaultScope(const std::string& what);
  ~FaultScope();
  FaultScope(const FaultScope&) = delete;
  FaultScope& operator=(const FaultScope&) = delete;

 private:
  std::string previous_;
};

// A folder the guard's parent removes if the child dies by a signal (the staging
// folder of an output being written); "" forgets it.
void fault_cleanup_folder(const std::string& path);

}  // namespace kiln
