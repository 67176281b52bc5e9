// Hill climbing over placement orders: start from the best greedy order, swap two
// buffers, keep the swap when the plan does not get bigger. Deterministic (fixed
// seed); stops at the lower bound, after `max_iterations`, or when time runs out.
#pragma once

#include "planner/planner.h"

namespace kiln::planner {

Plan plan_hill_climb(const PlanProblem& problem, uint64_t seed, int max_iterations, int64_t budget_ms);

}  // namespace kiln::planner
