#include "planner/hill_climb.h"

#include <chrono>
#include <random>

#include "planner/conflicts.h"
#include "planner/greedy.h"

namespace kiln::planner {

Plan plan_hill_climb(const PlanProblem& problem, uint64_t seed, int max_iterations, int64_t budget_ms) {
  auto conflicts = conflict_lists(problem);
  const auto start = std::chrono::steady_clock::now();
  std::vector<int> best_order;
  Plan best;
  bool have = false;
  for (auto kind : {GreedyOrder::Size, GreedyOrder::Conflicts, GreedyOrder::Area, GreedyOrder::Lifetime}) {
    auto order = greedy_order(problem, conflicts, kind);
    Plan p = place_in_order(problem, conflicts, order, "hill-climb");
    if (!have || total_size(p) < total_size(best)) {
      best = p;
      best_order = order;
      have = true;
    }
  }
  const size_t n = best_order.size();
  std::mt19937_64 rng(seed);  // a fixed seed: the same problem gives the same plan
  for (int it = 0; it < max_iterations && n > 1; ++it) {
    if (total_size(best) <= total_lower_bound(best)) break;
    // The iteration count decides where the climb stops, so plans are
    // reproducible; the clock is only a safety net far beyond the budget.
    if ((it & 63) == 0 && std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start)
                                  .count() > 4 * budget_ms + 1000)
      break;
    size_t i = size_t(rng() % n), j = size_t(rng() % n);
    if (i == j) continue;
    std::swap(best_order[i], best_order[j]);
    Plan p;
    try {
      p = place_in_order(problem, conflicts, best_order, "hill-climb");
    } catch (const PlanError&) {
      std::swap(best_order[i], best_order[j]);
      continue;
    }
    if (total_size(p) <= total_size(best)) best = p;
    else std::swap(best_order[i], best_order[j]);
  }
  best.algorithm = "hill-climb";
  return best;
}

}  // namespace kiln::planner
