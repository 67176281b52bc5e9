// The greedy planners: one placement routine (best-fit gap filling, see
// conflicts.cpp), different orders of the buffers. Which order wins depends on
// the graph, so `auto` tries them all.
#include <algorithm>
#include <numeric>

#include "planner/conflicts.h"
#include "planner/greedy.h"

namespace kiln::planner {

namespace {

std::vector<int> order_by(const PlanProblem& problem, const std::function<bool(const BufferInfo&, const BufferInfo&)>& before) {
  std::vector<int> order(problem.buffers.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    const auto& x = problem.buffers[size_t(a)];
    const auto& y = problem.buffers[size_t(b)];
    if (before(x, y)) return true;
    if (before(y, x)) return false;
    return a < b;  // deterministic ties
  });
  return order;
}

uint64_t lifetime(const BufferInfo& b) { return uint64_t(std::max<int64_t>(b.last - b.first, 0)); }

}  // namespace

std::vector<int> greedy_order(const PlanProblem& problem, const std::vector<std::vector<int>>& conflicts,
                              GreedyOrder kind) {
  switch (kind) {
    case GreedyOrder::Size:
      return order_by(problem, [](const BufferInfo& a, const BufferInfo& b) {
        return a.size_bytes != b.size_bytes ? a.size_bytes > b.size_bytes : lifetime(a) > lifetime(b);
      });
    case GreedyOrder::Area:
      return order_by(problem, [](const BufferInfo& a, const BufferInfo& b) {
        return a.size_bytes * lifetime(a) > b.size_bytes * lifetime(b);
      });
    case GreedyOrder::Lifetime:
      return order_by(problem, [](const BufferInfo& a, const BufferInfo& b) {
        return lifetime(a) != lifetime(b) ? lifetime(a) > lifetime(b) : a.size_bytes > b.size_bytes;
      });
    case GreedyOrder::Conflicts: {
      // Most constrained first: the total size of the buffers each one conflicts with.
      std::vector<uint64_t> weight(problem.buffers.size(), 0);
      for (size_t i = 0; i < conflicts.size(); ++i)
        for (int o : conflicts[i]) weight[i] += problem.buffers[size_t(o)].size_bytes;
      std::vector<int> order(problem.buffers.size());
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        uint64_t wa = weight[size_t(a)] + problem.buffers[size_t(a)].size_bytes;
        uint64_t wb = weight[size_t(b)] + problem.buffers[size_t(b)].size_bytes;
        return wa != wb ? wa > wb : a < b;
      });
      return order;
    }
  }
  return {};
}

Plan plan_greedy(const PlanProblem& problem, GreedyOrder kind) {
  auto conflicts = conflict_lists(problem);
  return place_in_order(problem, conflicts, greedy_order(problem, conflicts, kind), greedy_name(kind));
}

const char* greedy_name(GreedyOrder kind) {
  switch (kind) {
    case GreedyOrder::Size: return "greedy-by-size";
    case GreedyOrder::Conflicts: return "greedy-by-conflicts";
    case GreedyOrder::Area: return "greedy-by-area";
    case GreedyOrder::Lifetime: return "greedy-by-lifetime";
  }
  return "?";
}

Plan plan_greedy_by_size(const PlanProblem& problem) { return plan_greedy(problem, GreedyOrder::Size); }

}  // namespace kiln::planner
