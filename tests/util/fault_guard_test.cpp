// The fault guard: a child's exit status passes through, a fatal signal comes
// back with the innermost FaultScope alive at the time, and the staging folder
// the child registered is removed.
#include "util/fault_guard.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace kiln {
namespace {

namespace fs = std::filesystem;

// The child dies by `sig` as a real fault would: the default action, even when a
// sanitizer runtime installed its own handler for it.
[[noreturn]] void die_by(int sig) {
  ::signal(sig, SIG_DFL);
  ::raise(sig);
  ::_exit(100);
}

TEST(FaultGuard, ExitStatusPassesThrough) {
  EXPECT_EQ(run_guarded([] { return 0; }).exit_code, 0);
  const GuardedRun run = run_guarded([] { return 3; });
  EXPECT_EQ(run.exit_code, 3);
  EXPECT_EQ(run.signal, 0);
}

TEST(FaultGuard, FatalSignalNamesTheInnermostScope) {
  const GuardedRun run = run_guarded([]() -> int {
    FaultScope stage("the pipeline's 'settle' pass");
    {
      FaultScope node("ONNX's shape inference of Conv 'c1'");
    }
    FaultScope node("ONNX's shape inference of SplitToSequence 's0'");
    die_by(SIGFPE);
  });
  EXPECT_EQ(run.signal, SIGFPE);
  EXPECT_EQ(run.where, "ONNX's shape inference of SplitToSequence 's0'");
  const std::string text = describe_fault(run);
  EXPECT_NE(text.find("SIGFPE"), std::string::npos) << text;
  EXPECT_NE(text.find("in ONNX's shape inference of SplitToSequence 's0'"), std::string::npos) << text;
  EXPECT_TRUE(is_fault_signal(SIGFPE));
  EXPECT_FALSE(is_fault_signal(SIGINT));
}

TEST(FaultGuard, ScopeEndsRestoreTheOuterOne) {
  const GuardedRun run = run_guarded([]() -> int {
    FaultScope stage("the pipeline's 'lower' pass");
    { FaultScope node("ONNX's shape inference of Relu 'r'"); }
    die_by(SIGSEGV);
  });
  EXPECT_EQ(run.signal, SIGSEGV);
  EXPECT_EQ(run.where, "the pipeline's 'lower' pass");
  EXPECT_NE(describe_fault(run).find("SIGSEGV"), std::string::npos);
}

TEST(FaultGuard, RemovesTheRegisteredFolderAfterAFault) {
  const fs::path dir = fs::temp_directory_path() / ("kiln-fault-guard-test-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const GuardedRun run = run_guarded([&]() -> int {
    fs::create_directories(dir);
    std::ofstream(dir / "metadata.c") << "/* half written */";
    fault_cleanup_folder(dir.string());
    die_by(SIGABRT);
  });
  EXPECT_EQ(run.signal, SIGABRT);
  EXPECT_FALSE(fs::exists(dir));
}

TEST(FaultGuard, KeepsTheFolderWhenTheChildExits) {
  const fs::path dir = fs::temp_directory_path() / ("kiln-fault-guard-keep-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const GuardedRun run = run_guarded([&]() -> int {
    fs::create_directories(dir);
    fault_cleanup_folder(dir.string());
    return 1;  // an error path cleans up after itself; the guard touches nothing
  });
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_TRUE(fs::exists(dir));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace kiln
