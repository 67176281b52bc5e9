// `kiln compile MODEL -o DIR [flags]`.
#pragma once

#include <CLI/CLI.hpp>

namespace kiln {

void add_compile_command(CLI::App& app);

}  // namespace kiln
