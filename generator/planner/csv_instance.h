// Raw planning instances from CSV files (`id,lower,upper,size`, one buffer per
// row, live in the half-open interval [lower, upper)): the format of the public
// dynamic-storage-allocation benchmark sets, so the planner's algorithms can be
// compared on standard data (`kiln plan --csv`, bench/planner).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "planner/planner.h"

namespace kiln::planner {

// One workspace pool named "csv" (capacity as given, alignment 1) and one buffer
// per row. Extra columns are ignored; an `alignment` column is honoured. Throws
// PlanError naming the file and line on malformed input.
PlanProblem load_csv_instance(const std::string& path, std::optional<uint64_t> capacity);

}  // namespace kiln::planner
