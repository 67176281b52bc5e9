// The flags `kiln compile` shares with every command that compiles a model
// (verify, conformance): registered once so they read the same everywhere.
#pragma once

#include <CLI/CLI.hpp>

#include "driver/compile.h"

namespace kiln {

// Adds --module-name, pool flags, planner flags, folding flags, ... to `cmd`,
// writing into `opts`. Does not add the MODEL positional or -o.
void add_compile_options(CLI::App* cmd, CompileOptions* opts);

// One --input-shape NAME=D0,D1,... / --input-value NAME=V0,V1,...; CompileError naming the flag.
std::pair<std::string, Shape> parse_input_shape(const std::string& spec);
std::pair<std::string, std::vector<double>> parse_input_value(const std::string& spec);
// One --sequence-input NAME=COUNT:D0,D1,... or NAME=D0,D1;D0,D1;... (element shapes).
std::pair<std::string, std::vector<Shape>> parse_sequence_input_spec(const std::string& spec);

}  // namespace kiln
