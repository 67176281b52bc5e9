// `kiln verify MODEL --data DIR --board NAME`: compile, build for a board, run,
// compare with the expected outputs.
#pragma once

#include <CLI/CLI.hpp>

namespace kiln {

void add_verify_command(CLI::App& app);

}  // namespace kiln
