// The flags `kiln compile` shares with every command that compiles a model
// (verify, conformance): registered once so they read the same everywhere.
#pragma once

#include <CLI/CLI.hpp>

#include "driver/compile.h"

namespace kiln {

// Adds --module-name, pool flags, planner flags, folding flags, ... to `cmd`,
// writing into `opts`. Does not add the MODEL positional or -o.
void add_compile_options(CLI::App* cmd, CompileOptions* opts);

}  // namespace kiln
