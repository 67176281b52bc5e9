// The `exact` planner: pools are assigned as the greedy planners assign them
// (priority order, spilling on capacity), then each pool's offsets come from the
// branch-and-bound search of dsa_search.h, seeded with the greedy plan. The
// result is the best plan found within the budget; Plan::proven_optimal says
// whether every pool's size was proven minimal for that pool assignment.
#pragma once

#include "planner/planner.h"

namespace kiln::planner {

// `start`, when given, is a valid plan to improve on (its pool assignment is
// kept). Throws PlanError when some pool cannot hold its buffers.
Plan plan_exact(const PlanProblem& problem, int64_t budget_ms, const Plan* start = nullptr);

}  // namespace kiln::planner
