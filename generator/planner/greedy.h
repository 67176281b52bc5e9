// Greedy planners: the same best-fit placement, buffers taken in different orders.
#pragma once

#include <functional>
#include <vector>

#include "planner/planner.h"

namespace kiln::planner {

enum class GreedyOrder { Size, Conflicts, Area, Lifetime };

const char* greedy_name(GreedyOrder kind);
std::vector<int> greedy_order(const PlanProblem& problem, const std::vector<std::vector<int>>& conflicts,
                              GreedyOrder kind);
Plan plan_greedy(const PlanProblem& problem, GreedyOrder kind);

}  // namespace kiln::planner
