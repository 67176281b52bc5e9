#include "scheduler.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <thread>

namespace kiln::conformance {

namespace {

using Clock = std::chrono::steady_clock;

struct Running {
  size_t index;
  Clock::time_point start;
  bool killed = false;
};

pid_t spawn(const ChildSpec& s) {
  // Everything the child needs is prepared before fork(): it only calls
  // async-signal-safe functions until execv.
  std::vector<char*> args;
  for (const auto& a : s.argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  int fd = open(s.log_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);  // its own process group: the timeout kills compilers and runners it started
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, 0);
    execv(args[0], args.data());
    _exit(127);
  }
  if (fd >= 0) close(fd);
  if (pid > 0) setpgid(pid, pid);  // also from the parent, so a kill right away finds the group
  return pid;
}

}  // namespace

void run_children(const std::vector<ChildSpec>& specs, int jobs,
                  const std::function<void(size_t, const ChildResult&)>& done) {
  if (jobs < 1) jobs = 1;
  std::map<pid_t, Running> running;
  size_t next = 0;
  while (next < specs.size() || !running.empty()) {
    while (next < specs.size() && running.size() < size_t(jobs)) {
      pid_t pid = spawn(specs[next]);
      if (pid < 0) {
        ChildResult r;
        done(next++, r);
        continue;
      }
      running[pid] = Running{next++, Clock::now()};
    }
    // Peek without reaping: while the child is a zombie its pid, and so its
    // process group id, cannot be reused, so killing the group is safe.
    siginfo_t info{};
    pid_t pid = 0;
    if (waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) == 0) pid = info.si_pid;
    if (pid > 0) {
      auto it = running.find(pid);
      if (it == running.end()) {
        waitpid(pid, nullptr, 0);
        continue;
      }
      // Whatever the child left running in its group goes too.
      kill(-pid, SIGKILL);
      int status = 0;
      waitpid(pid, &status, 0);
      ChildResult r;
      r.seconds = std::chrono::duration<double>(Clock::now() - it->second.start).count();
      r.timed_out = it->second.killed;
      if (WIFEXITED(status) && !r.timed_out) r.exit_code = WEXITSTATUS(status);
      if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
      size_t index = it->second.index;
      running.erase(it);
      done(index, r);
      continue;
    }
    for (auto& [p, run] : running) {
      double t = specs[run.index].timeout_s;
      if (!run.killed && t > 0 && std::chrono::duration<double>(Clock::now() - run.start).count() > t) {
        kill(-p, SIGKILL);
        run.killed = true;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace kiln::conformance
