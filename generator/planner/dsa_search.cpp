#include "planner/dsa_search.h"

#include <algorithm>
#include <atomic>
#include <numeric>
#include <tuple>

#include "planner/conflicts.h"
#include "planner/dsa_component.h"

namespace kiln::planner {

namespace {

// Nodes per millisecond of --planner-budget-ms: roughly what this machine
// explores (see docs/memory-planning.md); fixed so plans are reproducible.
constexpr uint64_t kNodesPerMs = 400;


uint64_t peak_live(const std::vector<DsaItem>& items, const std::vector<int>& ids) {
  std::vector<std::pair<int64_t, int64_t>> ev;
  for (int i : ids) {
    ev.push_back({items[size_t(i)].first, int64_t(items[size_t(i)].size)});
    ev.push_back({items[size_t(i)].last, -int64_t(items[size_t(i)].size)});
  }
  std::sort(ev.begin(), ev.end());  // ends before starts at equal times
  int64_t live = 0, peak = 0;
  for (const auto& e : ev) peak = std::max(peak, live += e.second);
  return uint64_t(peak);
}

}  // namespace

namespace {
std::atomic<SearchProgressHook> search_progress_hook{nullptr};
}  // namespace

void set_search_progress_hook(SearchProgressHook hook) { search_progress_hook = hook; }

SearchBudget SearchBudget::from_ms(int64_t budget_ms) {
  SearchBudget b;
  uint64_t ms = uint64_t(std::max<int64_t>(budget_ms, 0));
  b.node_limit = ms * kNodesPerMs;
  b.hard_deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(4 * ms + 1000);
  return b;
}

bool SearchBudget::spend() {
  if (exhausted) return false;
  if (++nodes > node_limit) {
    exhausted = true;
  } else if ((nodes & 4095) == 0) {
    if (std::chrono::steady_clock::now() > hard_deadline) exhausted = true;
    if (SearchProgressHook hook = search_progress_hook.load()) hook(nodes, node_limit);
  }
  return !exhausted;
}

DsaOutcome minimise_height(const std::vector<DsaItem>& items, const std::vector<uint64_t>& incumbent,
                           uint64_t capacity, SearchBudget* budget) {
  DsaOutcome out;
  std::vector<int> real;  // items that occupy memory at some time
  for (size_t i = 0; i < items.size(); ++i)
    if (items[i].size > 0 && items[i].first < items[i].last) real.push_back(int(i));
  out.lower_bound = peak_live(items, real);
  std::vector<uint64_t> best(items.size(), 0);
  bool have = !incumbent.empty();
  if (have) best = incumbent;

  // Split at cut-lines: time points that no item's interval crosses.
  std::stable_sort(real.begin(), real.end(), [&](int a, int b) { return items[size_t(a)].first < items[size_t(b)].first; });
  std::vector<ComponentSearch> comps;
  {
    std::vector<int> cur;
    int64_t reach = INT64_MIN;
    for (int i : real) {
      if (!cur.empty() && items[size_t(i)].first >= reach) comps.emplace_back(items, std::move(cur)), cur.clear();
      cur.push_back(i);
      reach = std::max(reach, items[size_t(i)].last);
    }
    if (!cur.empty()) comps.emplace_back(items, std::move(cur));
  }
  auto comp_height = [&](const ComponentSearch& c) {
    uint64_t h = 0;
    for (int i : c.ids()) h = std::max(h, best[size_t(i)] + items[size_t(i)].size);
    return h;
  };
  auto height = [&]() {
    uint64_t h = 0;
    for (const auto& c : comps) h = std::max(h, comp_height(c));
    return h;
  };
  // Hardest (highest) subproblems first: an infeasible target fails there soonest.
  std::stable_sort(comps.begin(), comps.end(),
                   [&](const ComponentSearch& a, const ComponentSearch& b) { return have && comp_height(a) > comp_height(b); });

  // Every subproblem not yet within `target` is searched at that target. A
  // subproblem without a placement yet (no incumbent) counts as too high.
  std::vector<char> known(comps.size(), have ? 1 : 0);
  auto decide_all = [&](uint64_t target) {
    for (size_t c = 0; c < comps.size(); ++c) {
      if (known[c] && comp_height(comps[c]) <= target) continue;
      auto r = comps[c].decide(target, budget);
      if (r != ComponentSearch::Result::Found) return r;
      for (size_t k = 0; k < comps[c].ids().size(); ++k) best[size_t(comps[c].ids()[k])] = comps[c].offsets()[k];
      known[c] = 1;
    }
    return ComponentSearch::Result::Found;
  };

  uint64_t lo = out.lower_bound;
  uint64_t hi = have ? height() : UINT64_MAX;  // best height so far
  if (lo > capacity) {
    out.proven_infeasible = true;
    out.lower_bound = lo;
    return out;
  }
  if (!have || hi > capacity) {
    // First find anything within the capacity at all.
    auto r = decide_all(capacity);
    if (r != ComponentSearch::Result::Found) {
      out.proven_infeasible = r == ComponentSearch::Result::Infeasible;
      return out;
    }
    hi = height();
    have = true;
  }
  // Then tighten: the lower bound first (often reachable), then bisection.
  bool first = true;
  while (lo < hi) {
    uint64_t target = first ? lo : lo + (hi - 1 - lo) / 2;
    first = false;
    auto r = decide_all(target);
    if (r == ComponentSearch::Result::Found) hi = height();
    else if (r == ComponentSearch::Result::Infeasible) lo = target + 1;
    else break;
  }
  out.offsets = best;
  out.height = height();
  out.proven_optimal = lo >= hi;
  return out;
}

}  // namespace kiln::planner
