#include "util/progress.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>

namespace kiln {

namespace {

using Clock = std::chrono::steady_clock;

struct State {
  std::mutex mutex;
  std::condition_variable wake;
  std::string stage;
  Clock::time_point stage_start = Clock::now();
  std::atomic<uint64_t> done{0}, total{0};
  bool running = false;
  bool drawn = false;  // a line is on the terminal and must be erased
  std::thread thread;
};

State& state() {
  static State s;
  return s;
}

void draw(State& s, Clock::time_point start) {
  double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  char line[256];
  uint64_t total = s.total.load(), done = s.done.load();
  if (total > 0)
    std::snprintf(line, sizeof line, "\r\033[Kkiln: %s (%.0f%%, %.1f s)", s.stage.c_str(),
                  100.0 * double(std::min(done, total)) / double(total), elapsed);
  else
    std::snprintf(line, sizeof line, "\r\033[Kkiln: %s (%.1f s)", s.stage.c_str(), elapsed);
  (void)!write(2, line, std::strlen(line));
  s.drawn = true;
}

}  // namespace

void progress_stage(const std::string& name) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.stage = name;
  s.total = 0;
  s.done = 0;
  if (name.empty() && s.drawn) {  // about to print results: leave a clean line
    (void)!write(2, "\r\033[K", 4);
    s.drawn = false;
  }
}

void progress_fraction(uint64_t done, uint64_t total) {
  State& s = state();
  s.done = done;
  s.total = total;
}

bool stderr_is_terminal() {
  const char* term = std::getenv("TERM");
  return isatty(2) && !(term != nullptr && std::strcmp(term, "dumb") == 0);
}

ProgressDisplay::ProgressDisplay(bool enabled) : enabled_(enabled) {
  if (!enabled_) return;
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.running = true;
  s.drawn = false;
  const Clock::time_point start = Clock::now();
  s.thread = std::thread([&s, start]() {
    std::unique_lock<std::mutex> lock(s.mutex);
    while (s.running) {
      s.wake.wait_for(lock, std::chrono::milliseconds(200));
      if (s.running && !s.stage.empty() && Clock::now() - start >= std::chrono::seconds(1)) draw(s, start);
    }
  });
}

ProgressDisplay::~ProgressDisplay() {
  if (!enabled_) return;
  State& s = state();
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    s.running = false;
  }
  s.wake.notify_all();
  s.thread.join();
  if (s.drawn) (void)!write(2, "\r\033[K", 4);
  s.stage.clear();
}

}  // namespace kiln
