// `kiln plan --csv FILE`: plans a raw instance (id,lower,upper,size rows) with one
// of the planner's algorithms and prints the height, lower bound, time and
// whether the plan is proven optimal. For comparing the algorithms on standard
// data; see docs/memory-planning.md.
#pragma once

#include <CLI/CLI.hpp>

namespace kiln {

void add_plan_command(CLI::App& app);

}  // namespace kiln
