#include "planner/exact.h"

#include <string>

#include "planner/conflicts.h"
#include "planner/dsa_search.h"
#include "planner/greedy.h"
#include "planner/hill_climb.h"

namespace kiln::planner {

namespace {

// The smallest greedy (or hill-climbed) plan, or (when every greedy order overflows a capacity) a
// size-ordered plan that puts what fits nowhere into its last candidate pool,
// over capacity, for the search to repair. `error` keeps the greedy's message.
Plan starting_plan(const PlanProblem& problem, std::string* error) {
  auto conflicts = conflict_lists(problem);
  Plan best;
  bool have = false;
  for (auto kind : {GreedyOrder::Size, GreedyOrder::Conflicts, GreedyOrder::Area, GreedyOrder::Lifetime}) {
    try {
      Plan p = place_in_order(problem, conflicts, greedy_order(problem, conflicts, kind), greedy_name(kind));
      if (!have || total_size(p) < total_size(best)) best = p, have = true;
    } catch (const PlanError& e) {
      if (error->empty()) *error = e.what();
    }
  }
  if (have) {
    // Hill-climbing is cheap next to the search: start from its plan when better.
    if (total_size(best) > total_lower_bound(best)) {
      Plan h = plan_hill_climb(problem, /*seed=*/1, 2000, /*budget_ms=*/1000);
      if (total_size(h) < total_size(best)) best = h;
    }
    return best;
  }
  return place_in_order(problem, conflicts, greedy_order(problem, conflicts, GreedyOrder::Size), "greedy-by-size",
                        /*ignore_last_capacity=*/true);
}

}  // namespace

Plan plan_exact(const PlanProblem& problem, int64_t budget_ms, const Plan* start) {
  std::string greedy_error;
  Plan plan = start ? *start : starting_plan(problem, &greedy_error);
  SearchBudget budget = SearchBudget::from_ms(budget_ms);
  bool all_optimal = true;
  for (size_t p = 0; p < problem.pools.size(); ++p) {
    std::vector<int> ids;
    for (size_t i = 0; i < problem.buffers.size(); ++i)
      if (plan.placements[i].pool == int(p)) ids.push_back(int(i));
    if (ids.empty()) continue;
    // Already at its (alignment-aware) lower bound and within capacity: optimal.
    if (p < plan.pools.size() && plan.pools[p].size_bytes <= plan.pools[p].lower_bound &&
        plan.pools[p].size_bytes <= problem.pools[p].capacity.value_or(UINT64_MAX))
      continue;
    // The interval search sees every overlap in time as a conflict. Where some
    // mutually exclusive buffers overlap in time it solves a stricter problem: its
    // plans are valid, but the greedy / hill-climb plan (which shares their bytes)
    // may be better and may not be a valid start for it; the better one is kept,
    // optimal only when it meets the (clique) lower bound.
    const bool exclusive = exclusivity_matters(problem, ids);
    const uint64_t bound = p < plan.pools.size() ? plan.pools[p].lower_bound : 0;
    uint64_t start_height = 0;
    bool start_valid = true;  // the incumbent is a valid start for the interval search
    for (int i : ids) start_height = std::max(start_height, plan.placements[size_t(i)].offset + problem.buffers[size_t(i)].size_bytes);
    if (exclusive)
      for (size_t x = 0; x < ids.size() && start_valid; ++x)
        for (size_t y = x + 1; y < ids.size() && start_valid; ++y) {
          const BufferInfo &a = problem.buffers[size_t(ids[x])], &b = problem.buffers[size_t(ids[y])];
          const uint64_t oa = plan.placements[size_t(ids[x])].offset, ob = plan.placements[size_t(ids[y])].offset;
          if (lifetimes_overlap(a, b) && oa < ob + b.size_bytes && ob < oa + a.size_bytes) start_valid = false;
        }
    std::vector<DsaItem> items;
    std::vector<uint64_t> incumbent;
    for (int i : ids) {
      const BufferInfo& b = problem.buffers[size_t(i)];
      items.push_back({b.first, b.last, b.size_bytes, std::max<uint32_t>(b.alignment, 1)});
      incumbent.push_back(plan.placements[size_t(i)].offset);
    }
    if (!start_valid) incumbent.clear();
    const Pool& pool = problem.pools[p];
    const uint64_t capacity = pool.capacity.value_or(UINT64_MAX);
    DsaOutcome r = minimise_height(items, incumbent, capacity, &budget);
    if (exclusive && !start_valid && start_height <= capacity && (r.offsets.empty() || r.height >= start_height)) {
      all_optimal &= start_height <= bound;  // the shared-bytes plan stays
      continue;
    }
    if (r.offsets.empty()) {
      std::string why = r.proven_infeasible && !exclusive
                            ? "no placement of its buffers fits (proven by the exact search)"
                            : "the exact search found no placement within --planner-budget-ms";
      throw PlanError((greedy_error.empty() ? "" : greedy_error + "; ") + "pool '" + pool.name + "' (capacity " +
                      std::to_string(pool.capacity.value_or(0)) + " bytes, lower bound " +
                      std::to_string(r.lower_bound) + "): " + why);
    }
    for (size_t k = 0; k < ids.size(); ++k) plan.placements[size_t(ids[k])].offset = r.offsets[k];
    all_optimal &= exclusive ? r.height <= bound : r.proven_optimal;
  }
  finish_plan(problem, &plan);
  plan.algorithm = "exact";
  plan.proven_optimal = all_optimal;
  return plan;
}

}  // namespace kiln::planner
