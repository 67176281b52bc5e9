#include "util/fault_guard.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "util/error.h"

namespace kiln {

namespace {

// The page shared between the guard's parent and child. Plain chars only: the
// parent reads it after the child is gone, whatever state the child died in.
struct FaultRecord {
  char where[1024];
  char cleanup[4096];
};

FaultRecord* g_record = nullptr;  // set in the child while a guard runs
std::string g_where;              // the innermost scope, also without a guard

void copy_into(char* dst, size_t size, const std::string& text) {
  const size_t n = std::min(size - 1, text.size());
  std::memcpy(dst, text.data(), n);
  dst[n] = '\0';
}

void publish_where() {
  if (g_record) copy_into(g_record->where, sizeof g_record->where, g_where);
}

}  // namespace

FaultScope::FaultScope(const std::string& what) : previous_(g_where) {
  g_where = what;
  publish_where();
}

FaultScope::~FaultScope() {
  g_where = previous_;
  publish_where();
}

void fault_cleanup_folder(const std::string& path) {
  if (g_record) copy_into(g_record->cleanup, sizeof g_record->cleanup, path);
}

GuardedRun run_guarded(const std::function<int()>& body) {
  void* page = ::mmap(nullptr, sizeof(FaultRecord), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) throw CompileError(std::string("cannot map the fault record: ") + std::strerror(errno));
  auto* record = new (page) FaultRecord{};
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  const pid_t child = ::fork();
  if (child < 0) {
    ::munmap(page, sizeof(FaultRecord));
    throw CompileError(std::string("cannot start the compiler process: ") + std::strerror(errno));
  }
  if (child == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // a parent killed by a timeout takes the compile with it
    g_record = record;
    publish_where();
    const int code = body();
    std::exit(code);  // as a return from main: static destructors run, streams flush
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  GuardedRun run;
  if (WIFSIGNALED(status)) {
    run.signal = WTERMSIG(status);
    record->where[sizeof record->where - 1] = '\0';
    record->cleanup[sizeof record->cleanup - 1] = '\0';
    run.where = record->where;
    if (record->cleanup[0] != '\0') {
      std::error_code ec;
      std::filesystem::remove_all(record->cleanup, ec);
    }
  } else {
    run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
  }
  ::munmap(page, sizeof(FaultRecord));
  return run;
}

bool is_fault_signal(int signal) {
  return signal != 0 && signal != SIGINT && signal != SIGTERM && signal != SIGHUP && signal != SIGPIPE;
}

std::string describe_fault(const GuardedRun& run) {
  const char* name = "";
  switch (run.signal) {
    case SIGSEGV: name = "SIGSEGV"; break;
    case SIGFPE: name = "SIGFPE"; break;
    case SIGBUS: name = "SIGBUS"; break;
    case SIGILL: name = "SIGILL"; break;
    case SIGABRT: name = "SIGABRT"; break;
    case SIGKILL: name = "SIGKILL"; break;
    default: break;
  }
  std::string text = "internal fault (";
  text += name[0] ? std::string(name) + ", " : "signal " + std::to_string(run.signal) + ", ";
  text += ::strsignal(run.signal);
  text += ")";
  text += run.where.empty() ? " in the compiler" : " in " + run.where;
  return text;
}

}  // namespace kiln
