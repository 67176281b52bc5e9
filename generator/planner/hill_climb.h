// Hill climbing over placement orders: start from the best greedy order, swap two
// buffers, keep the swap when the plan does not get bigger. Deterministic (fixed
// seed); stops at the lower bound or after `max_iterations` (the clock only stops
// it as a safety net, at four times `budget_ms` plus a second).
#pragma once

#include "planner/planner.h"

namespace kiln::planner {

Plan plan_hill_climb(const PlanProblem& problem, uint64_t seed, int max_iterations, int64_t budget_ms);

}  // namespace kiln::planner
