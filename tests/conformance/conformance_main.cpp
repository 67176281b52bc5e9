// kiln_conformance: runs the ONNX backend test suite through Kiln and checks the
// outcome against tests/conformance/expected_failures.txt.
//
//   kiln_conformance [-j N]                      host board, every suite; fails on
//                                                any unexpected pass or failure
//   kiln_conformance --update                    rewrite expected_failures.txt and STATUS.md
//   kiln_conformance --board mps2-an386 --subset float32-passing --min-tests 150
//                                                the float32 node tests that pass on the
//                                                host, batched into few QEMU images
//
// The parent process discovers the tests, snapshots crt/, boards/ and templates/
// (so that files edited during the run cannot mix two versions), builds the
// runtime once per flag set, then runs one child process per job (`--worker`):
// a compiler crash or hang costs that job only.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <set>

#include "catalog.h"
#include "expectations.h"
#include "outcome.h"
#include "scheduler.h"
#include "status_report.h"
#include "util/paths.h"
#include "verify/board.h"
#include "verify/verify.h"
#include "worker.h"

namespace fs = std::filesystem;
using namespace kiln::conformance;

namespace {

struct Args {
  std::string data_root = "/usr/share/libonnx-testdata/data";
  std::vector<std::string> suites;
  std::vector<std::string> filters;
  int jobs = 0;
  std::string board = "host";
  std::string subset = "all";
  int min_tests = 0;
  double timeout_s = 300;
  double run_timeout_s = 120;
  std::string work_dir = "conformance-work";
  std::string expected = KILN_CONFORMANCE_DIR "/expected_failures.txt";
  std::string status;
  bool update = false;
  bool keep = false;
  bool no_check = false;
  uint64_t batch_bytes = 1000000;
  int batch_max = 40;
  std::string worker;
};

int worker_main(const std::string& job_file) {
  std::ifstream in(job_file);
  nlohmann::json j;
  in >> j;
  Job job = job_from_json(j);
  auto results = run_job(job);
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [id, o] : results) out[id] = to_json(o);
  fs::path result = fs::path(job_file).parent_path() / "result.json";
  fs::path tmp = result.string() + ".tmp";
  std::ofstream(tmp) << out.dump(1);
  fs::rename(tmp, result);
  return 0;
}

std::string self_exe() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) throw std::runtime_error("cannot find my own executable (/proc/self/exe)");
  return std::string(buf, size_t(n));
}

// Copies `from` into `to` keeping modification times, so that the runtime
// cache (keyed by file times) stays valid from one run to the next.
void snapshot(const fs::path& from, const fs::path& to) {
  fs::create_directories(to);
  for (const auto& e : fs::recursive_directory_iterator(from)) {
    fs::path dst = to / fs::relative(e.path(), from);
    if (e.is_directory()) {
      fs::create_directories(dst);
    } else if (e.is_regular_file()) {
      fs::copy_file(e.path(), dst, fs::copy_options::overwrite_existing);
      fs::last_write_time(dst, fs::last_write_time(e.path()));
    }
  }
}

std::string c_identifier(const std::string& s) {
  std::string out;
  for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = "t_" + out;
  return out;
}

std::string signal_name(int sig) {
  const char* d = strsignal(sig);
  return "signal " + std::to_string(sig) + (d ? std::string(" (") + d + ")" : "");
}

std::string last_line(const fs::path& file) {
  std::ifstream in(file);
  std::string line, last;
  while (std::getline(in, line))
    if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
  return last;
}

int run(const Args& a) {
  const auto t0 = std::chrono::steady_clock::now();
  const bool host = a.board == "host";
  if (a.update && (!a.filters.empty() || !a.suites.empty() || !host || a.subset != "all"))
    throw std::runtime_error("--update needs a full host run (no --filter, --suite, --subset or other --board)");
  std::vector<std::string> suites = a.suites.empty() ? default_suites() : a.suites;
  std::vector<TestEntry> tests = discover_tests(a.data_root, suites);
  if (tests.empty()) throw std::runtime_error("no tests under '" + a.data_root + "' (is libonnx-testdata installed?)");
  auto expected = read_expectations(a.expected);

  // Select.
  std::vector<TestEntry> selected;
  for (auto& t : tests) {
    bool keep = a.filters.empty();
    for (const auto& f : a.filters) keep |= t.id().find(f) != std::string::npos;
    if (a.subset == "float32-passing")
      keep &= t.suite == "node" && t.float32_only && t.model_error.empty() && !expected.count(t.id());
    else if (a.subset != "all")
      throw std::runtime_error("--subset '" + a.subset + "': expected all or float32-passing");
    if (keep) selected.push_back(t);
  }
  std::cout << "kiln_conformance: " << selected.size() << " tests on board '" << a.board << "'\n";
  if (int(selected.size()) < a.min_tests) {
    std::cerr << "kiln_conformance: only " << selected.size() << " tests selected, fewer than --min-tests "
              << a.min_tests << "\n";
    return 1;
  }

  // Snapshot the files the workers read and build the runtime once.
  fs::path work = fs::absolute(a.work_dir);
  fs::path home = work / "home";
  std::error_code ec;
  fs::remove_all(home, ec);
  fs::remove_all(work / "jobs", ec);
  for (const char* d : {"crt", "boards", "templates"}) snapshot(kiln::kiln_home() / d, home / d);
  setenv("KILN_HOME", home.c_str(), 1);
  kiln::VerifyOptions vo;
  vo.board = a.board;
  vo.work_dir = work;
  vo.crt_cache_dir = work / "crt-cache";
  std::string log;
  if (!kiln::prebuild_runtime(vo, &log)) {
    std::cerr << log << "\nkiln_conformance: the runtime does not build for board '" << a.board << "'\n";
    return 1;
  }
  kiln::Board board = kiln::load_board(a.board);

  // Jobs: one test each on the host; batches on QEMU boards (one image, one QEMU start).
  std::vector<std::vector<const TestEntry*>> batches;
  std::vector<const TestEntry*> order;
  for (const auto& t : selected) order.push_back(&t);
  // Big tests first, so that the slowest are not the last to start.
  std::stable_sort(order.begin(), order.end(),
                   [](const TestEntry* x, const TestEntry* y) { return x->data_bytes > y->data_bytes; });
  if (host) {
    for (const auto* t : order) batches.push_back({t});
  } else {
    std::stable_sort(order.begin(), order.end(), [](const TestEntry* x, const TestEntry* y) { return x->id() < y->id(); });
    uint64_t bytes = 0;
    for (const auto* t : order) {
      if (batches.empty() || int(batches.back().size()) >= a.batch_max || bytes + t->data_bytes > a.batch_bytes) {
        batches.emplace_back();
        bytes = 0;
      }
      batches.back().push_back(t);
      bytes += t->data_bytes;
    }
  }
  const std::string exe = self_exe();
  std::vector<ChildSpec> specs;
  std::vector<fs::path> job_dirs;
  for (size_t b = 0; b < batches.size(); ++b) {
    Job job;
    job.board = a.board;
    job.run_timeout_s = a.run_timeout_s;
    job.crt_cache_dir = vo.crt_cache_dir;
    job.keep = a.keep;
    job.work_dir = host ? work / "jobs" / batches[b][0]->suite / batches[b][0]->name
                        : work / "jobs" / ("batch" + std::to_string(b));
    for (const auto* t : batches[b])
      job.tests.push_back(JobTest{t->id(), t->dir, t->data_sets, c_identifier(t->name)});
    fs::create_directories(job.work_dir);
    std::ofstream(job.work_dir / "job.json") << job_to_json(job).dump(1);
    ChildSpec s;
    s.argv = {exe, "--worker", (job.work_dir / "job.json").string()};
    s.log_file = (job.work_dir / "worker.log").string();
    // Room for compiling and building each test, and for rerunning a failed batch test by test.
    s.timeout_s = host ? a.timeout_s : a.timeout_s + 2 * a.run_timeout_s + 20.0 * double(batches[b].size());
    specs.push_back(s);
    job_dirs.push_back(job.work_dir);
  }
  std::cout << "kiln_conformance: " << specs.size() << " jobs, " << a.jobs << " at a time (work folder " << work.string()
            << ")\n"
            << std::flush;

  std::map<std::string, Outcome> results;
  size_t finished_tests = 0, next_report = 100;
  run_children(specs, a.jobs, [&](size_t i, const ChildResult& cr) {
    std::map<std::string, Outcome> got;
    fs::path result = job_dirs[i] / "result.json";
    if (fs::exists(result)) {
      try {
        nlohmann::json j;
        std::ifstream(result) >> j;
        for (auto it = j.begin(); it != j.end(); ++it) got[it.key()] = outcome_from_json(it.value());
      } catch (const std::exception& e) {
        got.clear();
      }
    }
    for (const auto* t : batches[i]) {
      if (got.count(t->id())) continue;
      Outcome o;
      o.seconds = cr.seconds;
      if (cr.timed_out) {
        o.category = Category::Timeout;
        o.reason = "compiling, building and running took more than " + std::to_string(int(specs[i].timeout_s)) + " s";
      } else {
        o.category = Category::Crash;
        std::string tail = one_line(last_line(specs[i].log_file), 200);
        o.reason = (cr.signal ? "the compiler died with " + signal_name(cr.signal)
                              : "the worker exited with code " + std::to_string(cr.exit_code)) +
                   (tail.empty() ? "" : ": " + tail);
      }
      got[t->id()] = o;
    }
    for (const auto& [id, o] : got) {
      results[id] = o;
      ++finished_tests;
    }
    if (finished_tests >= next_report || finished_tests == selected.size()) {
      double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::cout << "  [" << finished_tests << "/" << selected.size() << "] " << int(s) << " s\n" << std::flush;
      while (next_report <= finished_tests) next_report += 100;
    }
  });
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  RunInfo info;
  info.board = a.board;
  for (const auto& f : board.cflags) info.flags += f + " ";
  if (host)
    for (const auto& f : board.sanitize_flags) info.flags += f + " ";
  info.flags += "-std=c99 -Wall -Wextra -Werror";
  info.jobs = a.jobs;
  info.wall_seconds = wall;
  info.command = "make conformance-update";

  std::cout << "\n" << summary_lines(selected, results);
  std::cout << "wall time: " << int(wall) << " s with -j " << a.jobs << "\n";
  if (!a.status.empty()) {
    std::ofstream(a.status) << status_markdown(selected, results, info);
    std::cout << "wrote " << a.status << "\n";
  }
  if (a.update) {
    write_expectations(a.expected, selected, results);
    std::cout << "wrote " << a.expected << "\n";
    return 0;
  }
  auto diffs = compare_with_expectations(selected, results, expected);
  if (diffs.empty()) {
    std::cout << "kiln_conformance: every test as expected (" << a.expected << ")\n";
    return 0;
  }
  std::cout << "\nkiln_conformance: " << diffs.size() << " tests differ from " << a.expected << ":\n";
  for (const auto& d : diffs) std::cout << "  " << d << "\n";
  std::cout << "(after adding kernels, rewrite the list with `make conformance-update`)\n";
  return a.no_check ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"kiln_conformance: the ONNX backend test suite through Kiln"};
  Args a;
  app.add_option("--data-root", a.data_root, "folder with the suites (node, pytorch-converted, ...)")
      ->capture_default_str();
  app.add_option("--suite", a.suites, "run only this suite (repeatable)");
  app.add_option("--filter", a.filters, "run only tests whose <suite>/<test> contains this (repeatable)");
  app.add_option("-j,--jobs", a.jobs, "parallel jobs (default: number of cores)");
  app.add_option("--board", a.board, "host (ASan/UBSan) or a QEMU board such as mps2-an386")->capture_default_str();
  app.add_option("--subset", a.subset,
                 "all | float32-passing (node tests, all inputs/outputs float32, not in the expected failures)")
      ->capture_default_str();
  app.add_option("--min-tests", a.min_tests, "fail if fewer tests are selected")->capture_default_str();
  app.add_option("--timeout", a.timeout_s, "seconds per test (compile + build + run) before it is a timeout")
      ->capture_default_str();
  app.add_option("--run-timeout", a.run_timeout_s, "seconds per run of an image")->capture_default_str();
  app.add_option("--work-dir", a.work_dir, "scratch folder (snapshot, runtime cache, failing tests' files)")
      ->capture_default_str();
  app.add_option("--expected", a.expected, "the expected failures file")->capture_default_str();
  app.add_option("--status", a.status, "write STATUS.md here");
  app.add_flag("--update", a.update, "rewrite --expected (and --status) from this run instead of checking");
  app.add_flag("--keep", a.keep, "keep the work files of passing tests too");
  app.add_flag("--no-check", a.no_check, "report differences from the expected failures but exit 0");
  app.add_option("--batch-bytes", a.batch_bytes, "QEMU: test data bytes per firmware image")->capture_default_str();
  app.add_option("--batch-max", a.batch_max, "QEMU: tests per firmware image")->capture_default_str();
  app.add_option("--worker", a.worker, "(internal) run one job file")->group("");
  CLI11_PARSE(app, argc, argv);
  try {
    if (!a.worker.empty()) return worker_main(a.worker);
    if (a.jobs <= 0) a.jobs = int(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
    return run(a);
  } catch (const std::exception& e) {
    std::cerr << "kiln_conformance: error: " << e.what() << "\n";
    return 2;
  }
}
