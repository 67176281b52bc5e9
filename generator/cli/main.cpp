// The `kiln` command line: one subcommand per file in this folder.
#include <CLI/CLI.hpp>
#include <iostream>
#include <string>
#include <vector>

#include "cli/compile_command.h"
#include "planner/planner.h"
#include "util/error.h"
#include "util/paths.h"
#include "util/version.h"

#include "cli/verify_command.h"
#include "cli/plan_command.h"
#include "cli/inspect_command.h"

int main(int argc, char** argv) {
  CLI::App app{"kiln: an ahead-of-time compiler from ONNX and TFLite models to plain C for Cortex-M microcontrollers"};
  app.require_subcommand(1);
  // The version, the commit, and where templates/crt/boards are read from.
  app.set_version_flag("--version", std::string("kiln ") + kiln::kiln_version() + " (commit " + kiln::kiln_commit() +
                                        ")\ndata: " + kiln::kiln_home().string());
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
}
