#include "planner/dsa_component.h"

#include <algorithm>
#include <numeric>
#include <tuple>

#include "planner/conflicts.h"

namespace kiln::planner {

namespace {

uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  h *= 0xff51afd7ed558ccdULL;
  return h ^ (h >> 33);
}

constexpr size_t kMemoSlots = size_t(1) << 20;  // 16 MiB of fingerprints
constexpr size_t kMemoProbe = 8;

}  // namespace

ComponentSearch::ComponentSearch(const std::vector<DsaItem>& all, std::vector<int> ids) : ids_(std::move(ids)) {
  std::vector<int64_t> points;
  for (int i : ids_) points.push_back(all[size_t(i)].first), points.push_back(all[size_t(i)].last);
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  nsec_ = int(points.size()) - 1;
  auto index = [&](int64_t t) { return int(std::lower_bound(points.begin(), points.end(), t) - points.begin()); };
  for (size_t k = 0; k < ids_.size(); ++k) {
    const DsaItem& d = all[size_t(ids_[k])];
    items_.push_back({index(d.first), index(d.last), d.size, std::max<uint32_t>(d.align, 1), -1, int(k)});
  }
  auto key = [](const Item& x) { return std::make_tuple(x.s0, -x.s1, ~x.size, ~x.align); };
  std::stable_sort(items_.begin(), items_.end(), [&](const Item& a, const Item& b) { return key(a) < key(b); });
  // Which of the items at one position (they share their start section) to try
  // first. No single rule suits every instance, so the budget is split between
  // two: longest (then largest) first, and largest area first. Failed states
  // found under one rule stay remembered for the other: they are proofs.
  rank_.assign(2, std::vector<int>(items_.size()));
  for (size_t b = 0; b < items_.size(); ++b) rank_[0][b] = int(b);
  {
    std::vector<int> order(items_.size());
    std::iota(order.begin(), order.end(), 0);
    auto area = [&](int b) {
      const Item& x = items_[size_t(b)];
      return x.size * uint64_t(points[size_t(x.s1)] - points[size_t(x.s0)]);
    };
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return area(a) > area(b); });
    for (size_t r = 0; r < order.size(); ++r) rank_[1][size_t(order[r])] = int(r);
  }
  for (size_t b = 1; b < items_.size(); ++b)
    if (key(items_[b]) == key(items_[b - 1])) items_[b].twin_prev = int(b - 1);
  first_item_.assign(size_t(nsec_) + 1, 0);
  for (int s = 0, b = 0; s <= nsec_; ++s) {
    while (b < int(items_.size()) && items_[size_t(b)].s0 < s) ++b;
    first_item_[size_t(s)] = b;
  }
  const size_t n = items_.size();
  conflicts_.assign(n, {});
  for (size_t a = 0; a < n; ++a)
    for (size_t b = a + 1; b < n && items_[b].s0 < items_[a].s1; ++b)  // sorted by start
      conflicts_[a].push_back(int(b)), conflicts_[b].push_back(int(a));
  offsets_.assign(ids_.size(), 0);
}

ComponentSearch::Result ComponentSearch::decide(uint64_t capacity, SearchBudget* budget) {
  cap_ = capacity;
  budget_ = budget;
  out_of_budget_ = false;
  const size_t n = items_.size();
  floor_.assign(n, 0);
  at_.assign(n, 0);
  early_.assign(n, 0);
  placed_.assign(n, 0);
  ahead_.assign(n, 0);
  undo_mark_.assign(n, 0);
  rem_.assign(size_t(nsec_), 0);
  low_.assign(size_t(nsec_), 0);
  cross_.assign(size_t(nsec_) + 1, 0);
  placed_stack_.clear();
  floor_undo_.clear();
  scratch_.clear();
  memo_.assign(kMemoSlots, {0, 0});
  memo_used_ = 0;
  for (const Item& it : items_) {
    for (int s = it.s0; s < it.s1; ++s) rem_[size_t(s)] += it.size;
    for (int t = it.s0 + 1; t < it.s1; ++t) ++cross_[size_t(t)];
  }
  for (int s = 0; s < nsec_; ++s)
    if (rem_[size_t(s)] > cap_) return Result::Infeasible;
  for (size_t round = 0;; ++round) {
    // Each rule gets an equal share of what is left of the budget; the last one
    // keeps searching until the budget is spent.
    rank_now_ = &rank_[std::min(round, rank_.size() - 1)];
    const uint64_t left = budget_->node_limit > budget_->nodes ? budget_->node_limit - budget_->nodes : 0;
    slice_left_ = round + 1 < rank_.size() ? left / (rank_.size() - round) : UINT64_MAX;
    out_of_budget_ = false;
    if (solve(0, nsec_, {0, -1})) {
      for (size_t b = 0; b < n; ++b) offsets_[size_t(items_[b].id_index)] = at_[b];
      return Result::Found;
    }
    if (!out_of_budget_) return Result::Infeasible;  // the whole tree was searched
    if (budget_->exhausted || round + 1 >= rank_.size()) return Result::OutOfBudget;
  }
}

bool ComponentSearch::split(int lo, int hi, Cursor cur, bool* result) {
  // Parts between boundaries no unplaced item crosses, keeping those with work.
  struct Part {
    int lo, hi;
    uint64_t load;
  };
  Part parts[64];
  int count = 0;
  bool many = false;
  for (int a = lo; a < hi;) {
    int b = a + 1;
    while (b < hi && cross_[size_t(b)] > 0) ++b;
    uint64_t load = 0;
    for (int s = a; s < b; ++s) load = std::max(load, rem_[size_t(s)]);
    if (load > 0) {
      if (count < 64) parts[count++] = {a, b, load};
      else many = true;
    }
    a = b;
  }
  if (count == 0) return *result = true;
  if (count == 1 || many) return false;  // (more than 64 parts: searched as one, still correct)
  // Most loaded part first: an infeasible part fails there soonest.
  std::sort(parts, parts + count, [](const Part& x, const Part& y) { return x.load > y.load; });
  const size_t mark = placed_stack_.size();
  for (int k = 0; k < count; ++k)
    if (!solve(parts[k].lo, parts[k].hi, cur)) {
      unplace_to(mark);
      *result = false;
      return true;
    }
  return *result = true;
}

bool ComponentSearch::solve(int lo, int hi, Cursor cur) {
  bool result = false;
  if (split(lo, hi, cur, &result)) return result;
  if (slice_left_ == 0 || !budget_->spend()) {
    out_of_budget_ = true;
    return false;
  }
  --slice_left_;
  const int ib = first_item_[size_t(lo)], ie = first_item_[size_t(hi)];
  // Where each unplaced item can go next, and the fingerprint of the state.
  uint64_t h1 = 0x9e3779b97f4a7c15ULL, h2 = 0x2545f4914f6cdd1dULL;
  for (int b = ib; b < ie; ++b) {
    if (placed_[size_t(b)]) continue;
    const Item& it = items_[size_t(b)];
    const uint64_t f = align_up(floor_[size_t(b)], it.align);
    const bool ahead = f > cur.level || (f == cur.level && it.s0 > cur.start);
    ahead_[size_t(b)] = ahead;
    early_[size_t(b)] = ahead ? f : cur.level;
    const uint64_t v = ahead ? f + 1 : 0;
    h1 = mix(h1, uint64_t(b) << 32 ^ v);
    h2 = mix(h2 + v, uint64_t(b) + 1);
  }
  h2 |= 1;
  if (memo_has(h1, h2)) return false;
  // An item behind the cursor must come to rest on an unplaced item it conflicts
  // with. Its lowest address is updated in place, so an item resting on another
  // one behind the cursor sees that one's raised bound (every value stays a valid
  // lower bound; more passes were measured and did not pay for themselves).
  for (int b = ib; b < ie; ++b) {
    if (placed_[size_t(b)] || ahead_[size_t(b)]) continue;
    uint64_t support = UINT64_MAX;
    for (int y : conflicts_[size_t(b)])
      if (!placed_[size_t(y)]) support = std::min(support, early_[size_t(y)] + items_[size_t(y)].size);
    if (support == UINT64_MAX) return false;
    early_[size_t(b)] = align_up(std::max(support, cur.level), items_[size_t(b)].align);
  }
  for (int s = lo; s < hi; ++s) low_[size_t(s)] = UINT64_MAX;
  uint64_t pa = UINT64_MAX;
  int ps = INT32_MAX;
  for (int b = ib; b < ie; ++b) {
    if (placed_[size_t(b)]) continue;
    const Item& it = items_[size_t(b)];
    const uint64_t e = early_[size_t(b)];
    if (ahead_[size_t(b)] && std::tie(e, it.s0) < std::tie(pa, ps) &&
        (it.twin_prev < 0 || placed_[size_t(it.twin_prev)]))
      pa = e, ps = it.s0;
    if (e + it.size > cap_) return false;
    for (int s = it.s0; s < it.s1; ++s) low_[size_t(s)] = std::min(low_[size_t(s)], e);
  }
  for (int s = lo; s < hi; ++s)
    if (rem_[size_t(s)] > 0 && low_[size_t(s)] + rem_[size_t(s)] > cap_) return false;
  if (pa == UINT64_MAX) return false;
  // The items that can take position (pa, ps).
  const size_t base = scratch_.size();
  bool forced = false;
  for (int b = first_item_[size_t(ps)]; b < first_item_[size_t(ps) + 1]; ++b) {
    const Item& it = items_[size_t(b)];
    if (placed_[size_t(b)] || !ahead_[size_t(b)] || early_[size_t(b)] != pa) continue;
    if (it.twin_prev >= 0 && !placed_[size_t(it.twin_prev)]) continue;
    bool hatless = true;
    for (int y : conflicts_[size_t(b)])
      if (!placed_[size_t(y)]) {
        hatless = false;
        break;
      }
    if (hatless) {
      // Nothing can ever lift it: it goes here in every solution.
      scratch_.resize(base);
      scratch_.push_back(b);
      forced = true;
      break;
    }
    scratch_.push_back(b);
  }
  const size_t end = scratch_.size();
  const std::vector<int>& rank = *rank_now_;
  std::sort(scratch_.begin() + long(base), scratch_.begin() + long(end),
            [&](int x, int y) { return rank[size_t(x)] < rank[size_t(y)]; });
  const Cursor next{pa, ps};
  bool found = false;
  for (size_t c = base; c < end && !found && !out_of_budget_; ++c) {
    const int b = scratch_[c];
    const size_t mark = placed_stack_.size();
    place(b, pa);
    if (solve(lo, hi, next)) found = true;
    else unplace_to(mark);
  }
  scratch_.resize(base);
  if (!found && !forced && !out_of_budget_ && solve(lo, hi, next)) found = true;
  if (!found && !out_of_budget_) memo_add(h1, h2);
  return found;
}

void ComponentSearch::place(int b, uint64_t at) {
  const Item& it = items_[size_t(b)];
  const uint64_t top = at + it.size;
  undo_mark_[size_t(b)] = floor_undo_.size();
  for (int o : conflicts_[size_t(b)])
    if (!placed_[size_t(o)] && floor_[size_t(o)] < top) {
      floor_undo_.push_back({o, floor_[size_t(o)]});
      floor_[size_t(o)] = top;
    }
  for (int s = it.s0; s < it.s1; ++s) rem_[size_t(s)] -= it.size;
  for (int t = it.s0 + 1; t < it.s1; ++t) --cross_[size_t(t)];
  placed_[size_t(b)] = 1;
  at_[size_t(b)] = at;
  placed_stack_.push_back(b);
}

void ComponentSearch::unplace_to(size_t mark) {
  while (placed_stack_.size() > mark) {
    const int b = placed_stack_.back();
    placed_stack_.pop_back();
    const Item& it = items_[size_t(b)];
    while (floor_undo_.size() > undo_mark_[size_t(b)]) {
      floor_[size_t(floor_undo_.back().first)] = floor_undo_.back().second;
      floor_undo_.pop_back();
    }
    for (int s = it.s0; s < it.s1; ++s) rem_[size_t(s)] += it.size;
    for (int t = it.s0 + 1; t < it.s1; ++t) ++cross_[size_t(t)];
    placed_[size_t(b)] = 0;
  }
}

bool ComponentSearch::memo_has(uint64_t k1, uint64_t k2) const {
  for (size_t p = 0; p < kMemoProbe; ++p) {
    const auto& slot = memo_[(k1 + p) & (kMemoSlots - 1)];
    if (slot.second == 0) return false;
    if (slot.first == k1 && slot.second == k2) return true;
  }
  return false;
}

void ComponentSearch::memo_add(uint64_t k1, uint64_t k2) {
  for (size_t p = 0; p < kMemoProbe; ++p) {
    auto& slot = memo_[(k1 + p) & (kMemoSlots - 1)];
    if (slot.second == 0 || (slot.first == k1 && slot.second == k2)) {
      memo_used_ += slot.second == 0;
      slot = {k1, k2};
      return;
    }
  }
  memo_[k1 & (kMemoSlots - 1)] = {k1, k2};  // full run: replace (a forgotten failure is only re-searched)
}

}  // namespace kiln::planner
