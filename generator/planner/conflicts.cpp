#include "planner/conflicts.h"

#include <algorithm>
#include <map>
#include <sstream>

namespace kiln::planner {

std::vector<std::vector<int>> conflict_lists(const PlanProblem& problem) {
  const auto& bs = problem.buffers;
  std::vector<std::vector<int>> c(bs.size());
  // Sweep by start time: only buffers starting before i ends can overlap it.
  std::vector<int> by_first(bs.size());
  for (size_t i = 0; i < bs.size(); ++i) by_first[i] = int(i);
  std::sort(by_first.begin(), by_first.end(), [&](int a, int b) { return bs[size_t(a)].first < bs[size_t(b)].first; });
  for (size_t x = 0; x < by_first.size(); ++x) {
    const auto& a = bs[size_t(by_first[x])];
    for (size_t y = x + 1; y < by_first.size(); ++y) {
      const auto& b = bs[size_t(by_first[y])];
      if (b.first >= a.last) break;
      if (buffers_conflict(a, b)) {
        c[size_t(by_first[x])].push_back(by_first[y]);
        c[size_t(by_first[y])].push_back(by_first[x]);
      }
    }
  }
  return c;
}

bool exclusivity_matters(const PlanProblem& problem, const std::vector<int>& ids) {
  std::vector<int> tagged;
  for (int i : ids)
    if (!problem.buffers[size_t(i)].exclusive.empty()) tagged.push_back(i);
  for (size_t x = 0; x < tagged.size(); ++x)
    for (size_t y = x + 1; y < tagged.size(); ++y) {
      const auto &a = problem.buffers[size_t(tagged[x])], &b = problem.buffers[size_t(tagged[y])];
      if (lifetimes_overlap(a, b) && mutually_exclusive(a, b)) return true;
    }
  return false;
}

namespace {

std::string describe_buffer(const BufferInfo& b) {
  std::ostringstream o;
  o << "buffer '" << b.name << "' (" << b.size_bytes << " bytes, live in steps [" << b.first << ", " << b.last << "))";
  return o.str();
}

}  // namespace

Plan place_in_order(const PlanProblem& problem, const std::vector<std::vector<int>>& conflicts,
                    const std::vector<int>& order, const std::string& algorithm, bool ignore_last_capacity) {
  const auto& bs = problem.buffers;
  Plan plan;
  plan.algorithm = algorithm;
  plan.placements.assign(bs.size(), Placement{});
  std::vector<char> placed(bs.size(), 0);
  std::vector<std::pair<uint64_t, uint64_t>> taken;  // [offset, end) of conflicting buffers in a pool
  for (int id : order) {
    const BufferInfo& b = bs[size_t(id)];
    if (b.pool_candidates.empty())
      throw PlanError(describe_buffer(b) + " has no candidate pool (check --pin and the pool flags)");
    std::ostringstream shortfall;
    bool done = false;
    for (int p : b.pool_candidates) {
      const Pool& pool = problem.pools[size_t(p)];
      uint64_t align = std::max<uint64_t>(b.alignment, 1);
      taken.clear();
      for (int o : conflicts[size_t(id)])
        if (placed[size_t(o)] && plan.placements[size_t(o)].pool == p)
          taken.push_back({plan.placements[size_t(o)].offset, plan.placements[size_t(o)].offset + bs[size_t(o)].size_bytes});
      std::sort(taken.begin(), taken.end());
      // Best fit: the smallest gap that holds the buffer; else on top of everything.
      uint64_t best = UINT64_MAX, best_gap = UINT64_MAX, cursor = 0;
      for (const auto& [start, end] : taken) {
        uint64_t at = align_up(cursor, align);
        if (at + b.size_bytes <= start && start - cursor < best_gap) {
          best = at;
          best_gap = start - cursor;
        }
        cursor = std::max(cursor, end);
      }
      if (best == UINT64_MAX) best = align_up(cursor, align);
      const bool last_resort = ignore_last_capacity && p == b.pool_candidates.back();
      if (pool.capacity && best + b.size_bytes > *pool.capacity && !last_resort) {
        shortfall << (shortfall.tellp() > 0 ? "; " : "") << "pool '" << pool.name << "' (capacity " << *pool.capacity
                  << ") is " << (best + b.size_bytes - *pool.capacity) << " bytes short";
        continue;
      }
      plan.placements[size_t(id)] = {p, best};
      placed[size_t(id)] = 1;
      done = true;
      break;
    }
    if (!done) throw PlanError(describe_buffer(b) + " fits no pool: " + shortfall.str());
  }
  finish_plan(problem, &plan);
  return plan;
}

void finish_plan(const PlanProblem& problem, Plan* plan) {
  plan->pools.assign(problem.pools.size(), PoolUsage{});
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    const auto& pl = plan->placements[i];
    if (pl.pool < 0) continue;
    auto& u = plan->pools[size_t(pl.pool)];
    u.size_bytes = std::max(u.size_bytes, pl.offset + problem.buffers[i].size_bytes);
  }
  auto lb = lower_bounds(problem, plan->placements);
  for (size_t p = 0; p < lb.size(); ++p) plan->pools[p].lower_bound = lb[p];
}

uint64_t total_size(const Plan& plan) {
  uint64_t s = 0;
  for (const auto& p : plan.pools) s += p.size_bytes;
  return s;
}

uint64_t total_lower_bound(const Plan& plan) {
  uint64_t s = 0;
  for (const auto& p : plan.pools) s += p.lower_bound;
  return s;
}

namespace {

bool is_power_of_two(uint64_t a) { return a != 0 && (a & (a - 1)) == 0; }

// The bound of the buffers live at one step, which pairwise conflict. Each offset
// is a multiple of its buffer's alignment, hence (powers of two) of the smallest
// alignment A among them; so every buffer but the topmost takes its size rounded up
// to A before the next one starts: sum(round_up(s, A)) - max(round_up(s, A) - s).
// Without this, a pool of constants (all live at once) padded for alignment could
// never be seen to be at its bound, and `auto` would search for nothing.
uint64_t live_set_bound(const std::vector<const BufferInfo*>& live) {
  uint64_t a = UINT64_MAX;
  for (const BufferInfo* b : live) a = std::min<uint64_t>(a, is_power_of_two(b->alignment) ? b->alignment : 1);
  uint64_t sum = 0, max_pad = 0;
  for (const BufferInfo* b : live) {
    const uint64_t rounded = (b->size_bytes + a - 1) / a * a;
    sum += rounded;
    max_pad = std::max(max_pad, rounded - b->size_bytes);
  }
  return sum - max_pad;
}

// The heaviest clique of the buffers live at one step (all overlap in time): a
// clique holds at most one side of each group, so split on a group with two sides
// present and keep the better half, recursively. `budget` caps the splits (many
// unrelated groups live at once); past it, a clique still: the untagged buffers
// and the largest tagged one.
uint64_t clique_bound(const std::vector<const BufferInfo*>& live, int* budget) {
  std::map<int, int> first_side;  // group -> the first side seen
  int group = 0;
  bool split = false;
  for (const BufferInfo* b : live)
    for (const ExclusiveTag& t : b->exclusive) {
      auto [it, fresh] = first_side.emplace(t.group, t.side);
      if (!fresh && it->second != t.side && !split) group = t.group, split = true;
    }
  if (!split) return live_set_bound(live);
  if (--*budget < 0) {
    std::vector<const BufferInfo*> clique;
    const BufferInfo* largest = nullptr;
    for (const BufferInfo* b : live) {
      if (b->exclusive.empty()) clique.push_back(b);
      else if (!largest || b->size_bytes > largest->size_bytes) largest = b;
    }
    if (largest) clique.push_back(largest);
    return live_set_bound(clique);
  }
  std::vector<int> sides;
  for (const BufferInfo* b : live)
    for (const ExclusiveTag& t : b->exclusive)
      if (t.group == group && std::find(sides.begin(), sides.end(), t.side) == sides.end()) sides.push_back(t.side);
  uint64_t best = 0;
  std::vector<const BufferInfo*> half;
  for (int side : sides) {
    half.clear();
    for (const BufferInfo* b : live) {
      bool other = false;
      for (const ExclusiveTag& t : b->exclusive) other |= t.group == group && t.side != side;
      if (!other) half.push_back(b);
    }
    best = std::max(best, clique_bound(half, budget));
  }
  return best;
}

}  // namespace

std::vector<uint64_t> lower_bounds(const PlanProblem& problem, const std::vector<Placement>& placements) {
  // Per pool: the peak over steps of the live set's bound (of its heaviest clique
  // when some buffers there are mutually exclusive). Only a step where some
  // buffer starts can be a peak (the live set only shrinks until the next start).
  std::vector<std::vector<const BufferInfo*>> in_pool(problem.pools.size());
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    int p = placements[i].pool;
    const auto& b = problem.buffers[i];
    if (p < 0 || b.size_bytes == 0 || b.first >= b.last) continue;
    in_pool[size_t(p)].push_back(&b);
  }
  std::vector<uint64_t> lb(problem.pools.size(), 0);
  for (size_t p = 0; p < in_pool.size(); ++p) {
    auto& bufs = in_pool[p];
    std::sort(bufs.begin(), bufs.end(), [](const BufferInfo* x, const BufferInfo* y) { return x->first < y->first; });
    std::vector<const BufferInfo*> live;
    for (size_t i = 0; i < bufs.size(); ++i) {
      const int64_t t = bufs[i]->first;
      if (i + 1 < bufs.size() && bufs[i + 1]->first == t) continue;  // all starts at t first
      live.clear();
      for (size_t j = 0; j <= i; ++j)
        if (bufs[j]->last > t) live.push_back(bufs[j]);
      int budget = 256;
      lb[p] = std::max(lb[p], clique_bound(live, &budget));
    }
  }
  return lb;
}

}  // namespace kiln::planner
