#include "util/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>

namespace kiln {

std::string command_line(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

ProcessResult run_process(const std::vector<std::string>& argv, double timeout_s, bool merge_stderr) {
  ProcessResult r;
  int out[2], err[2];
  // Close-on-exec: a program started at the same time from another thread (kiln
  // verify compiles in parallel) must not inherit these pipes and hold them open.
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
    r.error = "pipe failed";
    return r;
  }
  std::vector<char*> args;  // built before fork: the child only execs
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = fork();
  if (pid < 0) {
    r.error = "fork failed";
    return r;
  }
  if (pid == 0) {
    setpgid(0, 0);  // own process group: a timeout kills the whole tree
    dup2(out[1], 1);
    dup2(merge_stderr ? out[1] : err[1], 2);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, 0);
    close(out[0]), close(out[1]), close(err[0]), close(err[1]);
    execvp(args[0], args.data());
    std::string msg = "cannot run '" + argv[0] + "': " + std::strerror(errno) + "\n";
    (void)!write(2, msg.data(), msg.size());
    _exit(127);
  }
  close(out[1]), close(err[1]);
  const auto start = std::chrono::steady_clock::now();
  pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  int open_fds = 2;
  char buf[65536];
  while (open_fds > 0) {
    int wait_ms = 200;
    if (timeout_s > 0) {
      double left = timeout_s - std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (left <= 0) {
        r.timed_out = true;
        kill(-pid, SIGKILL);
        break;
      }
      wait_ms = int(std::min(left * 1000.0, 200.0)) + 1;
    }
    if (poll(fds, 2, wait_ms) < 0) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        (i == 0 ? r.output : r.error).append(buf, size_t(n));
      } else {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  for (auto& f : fds)
    if (f.fd >= 0) close(f.fd);
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status) && !r.timed_out) r.exit_code = WEXITSTATUS(status);
  return r;
}

}  // namespace kiln
