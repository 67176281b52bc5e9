// plan_memory: picks an algorithm by name. `auto` runs every greedy order and
// keeps the smallest plan; if none reaches the lower bound it hill-climbs.
#include <sstream>

#include "planner/conflicts.h"
#include "planner/greedy.h"
#include "planner/hill_climb.h"
#include "planner/planner.h"

namespace kiln::planner {

std::vector<std::string> planner_algorithms() {
  return {"auto", "greedy-by-size", "greedy-by-conflicts", "greedy-by-area", "greedy-by-lifetime", "hill-climb"};
}

Plan plan_memory(const PlanProblem& problem, const PlannerOptions& options) {
  const std::string& a = options.algorithm;
  if (a == "greedy-by-size") return plan_greedy(problem, GreedyOrder::Size);
  if (a == "greedy-by-conflicts") return plan_greedy(problem, GreedyOrder::Conflicts);
  if (a == "greedy-by-area") return plan_greedy(problem, GreedyOrder::Area);
  if (a == "greedy-by-lifetime") return plan_greedy(problem, GreedyOrder::Lifetime);
  if (a == "hill-climb") return plan_hill_climb(problem, options.seed, 20000, options.budget_ms);
  if (a == "auto") {
    Plan best;
    bool have = false;
    for (auto kind : {GreedyOrder::Size, GreedyOrder::Conflicts, GreedyOrder::Area, GreedyOrder::Lifetime}) {
      Plan p = plan_greedy(problem, kind);
      if (!have || total_size(p) < total_size(best)) best = p, have = true;
    }
    if (total_size(best) > total_lower_bound(best)) {
      Plan h = plan_hill_climb(problem, options.seed, 2000, options.budget_ms);
      if (total_size(h) < total_size(best)) best = h;
    }
    best.proven_optimal = total_size(best) == total_lower_bound(best);
    best.algorithm = "auto (" + best.algorithm + ")";
    return best;
  }
  std::ostringstream names;
  for (const auto& n : planner_algorithms()) names << (names.tellp() > 0 ? ", " : "") << n;
  throw PlanError("--memory-planner '" + a + "' is not an algorithm (choose one of: " + names.str() + ")");
}

}  // namespace kiln::planner
