// Shared helpers of the planning algorithms: which buffers conflict (overlapping
// live intervals, not mutually exclusive), and placing one buffer at the lowest
// best-fitting offset.
#pragma once

#include <vector>

#include "planner/planner.h"

namespace kiln::planner {

inline bool lifetimes_overlap(const BufferInfo& a, const BufferInfo& b) {
  return a.size_bytes > 0 && b.size_bytes > 0 && a.first < b.last && b.first < a.last;
}

// Never used in the same run: tagged with different sides of one group.
inline bool mutually_exclusive(const BufferInfo& a, const BufferInfo& b) {
  for (const ExclusiveTag& x : a.exclusive)
    for (const ExclusiveTag& y : b.exclusive)
      if (x.group == y.group && x.side != y.side) return true;
  return false;
}

inline bool buffers_conflict(const BufferInfo& a, const BufferInfo& b) {
  return lifetimes_overlap(a, b) && !mutually_exclusive(a, b);
}

// Whether any two buffers of `ids` overlap in time but are mutually exclusive
// (the interval-only exact search cannot express that, see exact.cpp).
bool exclusivity_matters(const PlanProblem& problem, const std::vector<int>& ids);

inline uint64_t align_up(uint64_t v, uint64_t a) { return a <= 1 ? v : (v + a - 1) / a * a; }

// conflicts[i] = ids of the buffers that conflict with buffer i.
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
