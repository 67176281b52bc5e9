// `kiln inspect MODEL`: what the model is and what folding does to it (nodes and
// constant bytes before/after, what was folded or rewritten, folds left to run
// time by --fold-size-limit), without compiling it.
#pragma once

#include <CLI/CLI.hpp>

namespace kiln {

void add_inspect_command(CLI::App& app);

}  // namespace kiln
