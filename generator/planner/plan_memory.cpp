// plan_memory: picks an algorithm by name. `auto` runs every greedy order and
// keeps the smallest plan; if none reaches the lower bound it hill-climbs, and if
// that does not reach it either, the exact search improves the best plan so far
// within the budget. State buffers (kept between runs) are first given the whole
// program's span, so every algorithm keeps every other buffer off their bytes.
#include <algorithm>
#include <sstream>

#include "planner/conflicts.h"
#include "planner/exact.h"
#include "planner/greedy.h"
#include "planner/hill_climb.h"
#include "planner/planner.h"

namespace kiln::planner {

std::vector<std::string> planner_algorithms() {
  return {"auto", "greedy-by-size", "greedy-by-conflicts", "greedy-by-area", "greedy-by-lifetime", "hill-climb", "exact"};
}

namespace {

// `problem` with each State buffer live from the first step any buffer is live to
// the last, in every run (no exclusivity): it conflicts with every buffer that is
// ever live.
PlanProblem with_persistent_state(const PlanProblem& problem) {
  PlanProblem out = problem;
  int64_t first = 0, last = 0;
  bool any = false;
  for (const auto& b : problem.buffers) {
    if (b.first >= b.last) continue;
    first = any ? std::min(first, b.first) : b.first;
    last = any ? std::max(last, b.last) : b.last;
    any = true;
  }
  for (auto& b : out.buffers)
    if (b.kind == BufferKind::State) {
      b.first = any ? first : 0;
      b.last = any ? last : 1;
      b.exclusive.clear();
    }
  return out;
}

Plan plan_by_name(const PlanProblem& problem, const PlannerOptions& options);

}  // namespace

Plan plan_memory(const PlanProblem& problem, const PlannerOptions& options) {
  const bool has_state = std::any_of(problem.buffers.begin(), problem.buffers.end(),
                                     [](const BufferInfo& b) { return b.kind == BufferKind::State; });
  return has_state ? plan_by_name(with_persistent_state(problem), options) : plan_by_name(problem, options);
}

namespace {

Plan plan_by_name(const PlanProblem& problem, const PlannerOptions& options) {
  const std::string& a = options.algorithm;
  if (a == "greedy-by-size") return plan_greedy(problem, GreedyOrder::Size);
  if (a == "greedy-by-conflicts") return plan_greedy(problem, GreedyOrder::Conflicts);
  if (a == "greedy-by-area") return plan_greedy(problem, GreedyOrder::Area);
  if (a == "greedy-by-lifetime") return plan_greedy(problem, GreedyOrder::Lifetime);
  // The climb's length follows the budget (20 swaps per ms, at most 20000), as a
  // count rather than a clock so that plans are reproducible.
  if (a == "hill-climb") {
    int iterations = int(std::clamp<int64_t>(options.budget_ms * 20, 100, 20000));
    return plan_hill_climb(problem, options.seed, iterations, options.budget_ms);
  }
  if (a == "exact") return plan_exact(problem, options.budget_ms);
  if (a == "auto") {
    Plan best;
    bool have = false;
    for (auto kind : {GreedyOrder::Size, GreedyOrder::Conflicts, GreedyOrder::Area, GreedyOrder::Lifetime}) {
      try {
        Plan p = plan_greedy(problem, kind);
        if (!have || total_size(p) < total_size(best)) best = p, have = true;
      } catch (const PlanError&) {
        // Over capacity in this order; another order (or the exact search) may fit.
      }
    }
    // Every greedy order overflowed a capacity: only the exact search may still fit.
    if (!have) {
      best = plan_exact(problem, options.budget_ms);
    } else if (total_size(best) > total_lower_bound(best)) {
      Plan h = plan_hill_climb(problem, options.seed, 2000, options.budget_ms);
      if (total_size(h) < total_size(best)) best = h;
      if (total_size(best) > total_lower_bound(best)) {
        Plan e = plan_exact(problem, options.budget_ms, &best);
        if (total_size(e) <= total_size(best)) best = e;
      }
    }
    best.proven_optimal = best.proven_optimal || total_size(best) == total_lower_bound(best);
    best.algorithm = "auto (" + best.algorithm + ")";
    return best;
  }
  std::ostringstream names;
  for (const auto& n : planner_algorithms()) names << (names.tellp() > 0 ? ", " : "") << n;
  throw PlanError("--memory-planner '" + a + "' is not an algorithm (choose one of: " + names.str() + ")");
}

}  // namespace

}  // namespace kiln::planner
