// Shared helpers of the planning algorithms: which buffers conflict (overlapping
// live intervals), and placing one buffer at the lowest best-fitting offset.
#pragma once

#include <vector>

#include "planner/planner.h"

namespace kiln::planner {

inline bool lifetimes_overlap(const BufferInfo& a, const BufferInfo& b) {
  return a.size_bytes > 0 && b.size_bytes > 0 && a.first < b.last && b.first < a.last;
}

inline uint64_t align_up(uint64_t v, uint64_t a) { return a <= 1 ? v : (v + a - 1) / a * a; }

// conflicts[i] = ids of the buffers whose live intervals overlap buffer i's.
std::vector<std::vector<int>> conflict_lists(const PlanProblem& problem);

// Places buffers one by one in `order` (best-fit into gaps between already placed,
// conflicting buffers; candidate pools tried in priority order, spilling when a
// capacity is exceeded). Throws PlanError when a buffer fits no candidate pool.
// With `ignore_last_capacity`, a buffer that fits no earlier pool goes into its
// last candidate whatever its capacity (the exact planner then tries to fit it).
Plan place_in_order(const PlanProblem& problem, const std::vector<std::vector<int>>& conflicts,
                    const std::vector<int>& order, const std::string& algorithm,
                    bool ignore_last_capacity = false);

// Fills Plan::pools (size = highest end, lower bound) from the placements.
void finish_plan(const PlanProblem& problem, Plan* plan);

// Sum over pools of their sizes: what the algorithms minimise.
uint64_t total_size(const Plan& plan);
// Sum over pools of the lower bounds.
uint64_t total_lower_bound(const Plan& plan);

}  // namespace kiln::planner
