// The `kiln` command line: one subcommand per file in this folder.
#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "cli/compile_command.h"
#include "planner/planner.h"
#include "util/error.h"
#include "util/fault_guard.h"
#include "util/paths.h"
#include "util/version.h"

#include "cli/verify_command.h"
#include "cli/plan_command.h"
#include "cli/inspect_command.h"

int main(int argc, char** argv) {
  // Named: args below are parsed without argv[0], so CLI11 would print "Usage: [OPTIONS]".
  CLI::App app{"kiln: an ahead-of-time compiler from ONNX and TFLite models to plain C for Cortex-M microcontrollers",
               "kiln"};
  app.require_subcommand(1);
  // The version, the commit, and where templates/crt/boards are read from.
  app.set_version_flag("--version", kiln::kiln_identity() + "\ndata: " + kiln::kiln_home().string());
  kiln::add_compile_command(app);
  kiln::add_verify_command(app);
  kiln::add_plan_command(app);
  kiln::add_inspect_command(app);
  // tvmc habit: accept GCC-style "-mcpu=..." as "--mcpu=...".
  std::vector<std::string> args;
  for (int i = argc - 1; i >= 1; --i) {
    std::string a = argv[i];
    if (a.rfind("-mcpu", 0) == 0) a = "-" + a;
    args.push_back(a);
  }
  auto run = [&]() -> int {
    try {
      app.parse(args);
    } catch (const CLI::ParseError& e) {
      return app.exit(e);
    } catch (const kiln::CompileError& e) {
      std::cerr << "kiln: error: " << e.what() << "\n";
      return 1;
    } catch (const kiln::planner::PlanError& e) {  // bad pool/pin flags, a plan that fits no pool
      std::cerr << "kiln: error: " << e.what() << "\n";
      return 1;
    } catch (const std::exception& e) {
      std::cerr << "kiln: internal error: " << e.what() << "\n";
      return 2;
    }
    return 0;
  };
  // The compile runs in a child process so that a fault inside ONNX's library
  // (which Kiln's validation has no rule for yet) is an error naming the node,
  // not a crash (util/fault_guard.h). KILN_FAULT_GUARD=0 runs it in-process, for
  // a debugger.
  const char* guard = std::getenv("KILN_FAULT_GUARD");
  if (guard && std::string(guard) == "0") return run();
  const kiln::GuardedRun result = kiln::run_guarded(run);
  if (result.signal == 0) return result.exit_code;
  if (!kiln::is_fault_signal(result.signal)) {  // Ctrl-C, a timeout: end the way the child did
    std::signal(result.signal, SIG_DFL);
    std::raise(result.signal);
    return 128 + result.signal;
  }
  std::cerr << "kiln: internal error: " << kiln::describe_fault(result)
            << "; nothing was written. This is a bug: please report it with the model.\n";
  return 2;
}
