#include "planner/dsa_component.h"

#include <algorithm>
#include <climits>
#include <numeric>
#include <random>
#include <tuple>

#include "planner/conflicts.h"

namespace kiln::planner {

namespace {

uint64_t mix(uint64_t h) {
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebULL;
  return h ^ (h >> 31);
}

constexpr uint64_t kNone = UINT64_MAX;
constexpr size_t kMemoMinSlots = size_t(1) << 12;
constexpr size_t kMemoMaxSlots = size_t(1) << 20;  // 16 MiB of fingerprints at most
constexpr size_t kMemoProbe = 8;
// Nodes of the first run; run i gets this times the i-th term of the Luby
// sequence (1 1 2 1 1 2 4 1 1 2 ...).
constexpr uint64_t kRestartBase = 500;

uint64_t luby(uint64_t i) {  // i >= 1
  for (;;) {
    uint64_t p = 1;
    while (2 * p - 1 < i) p *= 2;
    if (2 * p - 1 == i) return p;
    i -= p - 1;
  }
}

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
  const size_t n = items_.size();
  for (size_t b = 1; b < n; ++b)
    if (key(items_[b]) == key(items_[b - 1])) items_[b].twin_prev = int(b - 1);
  {
    auto length = [&](size_t b) { return points[size_t(items_[b].s1)] - points[size_t(items_[b].s0)]; };
    std::vector<int> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      return std::make_tuple(-length(size_t(a)), ~items_[size_t(a)].size) <
             std::make_tuple(-length(size_t(b)), ~items_[size_t(b)].size);
    });
    rank_.assign(n, 0);
    for (size_t r = 0; r < n; ++r) rank_[size_t(order[r])] = int(r);
  }
  first_item_.assign(size_t(nsec_) + 1, 0);
  for (int s = 0, b = 0; s <= nsec_; ++s) {
    while (b < int(n) && items_[size_t(b)].s0 < s) ++b;
    first_item_[size_t(s)] = b;
  }
  conflicts_.assign(n, {});
  for (size_t a = 0; a < n; ++a)
    for (size_t b = a + 1; b < n && items_[b].s0 < items_[a].s1; ++b)  // sorted by start
      conflicts_[a].push_back(int(b)), conflicts_[b].push_back(int(a));
  cover_.assign(size_t(nsec_), {});
  for (size_t b = 0; b < n; ++b)
    for (int s = items_[b].s0; s < items_[b].s1; ++s) cover_[size_t(s)].push_back(int(b));
  for (auto& c : cover_)
    std::stable_sort(c.begin(), c.end(), [&](int x, int y) {
      return items_[size_t(x)].s1 - items_[size_t(x)].s0 < items_[size_t(y)].s1 - items_[size_t(y)].s0;
    });
  std::mt19937_64 rng(0x6b696c6e);  // fixed: fingerprints are the same on every run
  zkey_.resize(4 * n);
  for (auto& z : zkey_) z = rng();
  offsets_.assign(ids_.size(), 0);
}

uint64_t ComponentSearch::offset_of(int b) const { return align_up(top_[size_t(b)], items_[size_t(b)].align); }

// An item waits (is not a candidate now) when it was excluded at its offset or,
// in waiting mode, when its offset is below the level already left behind.
bool ComponentSearch::waiting(int b, uint64_t o, uint64_t level) const {
  return excl_[size_t(b)] == o || (may_wait_ && o < level);
}

ComponentSearch::Result ComponentSearch::decide(uint64_t capacity, SearchBudget* budget) {
  cap_ = capacity;
  budget_ = budget;
  const size_t n = items_.size();
  top_.assign(n, 0);
  at_.assign(n, 0);
  excl_.assign(n, kNone);
  placed_.assign(n, 0);
  undo_mark_.assign(n, 0);
  next_.resize(n);
  prev_.resize(n);
  for (size_t b = 0; b < n; ++b) next_[b] = int(b + 1), prev_[b] = int(b) - 1;
  rem_.assign(size_t(nsec_), 0);
  floor_.assign(size_t(nsec_), 0);
  witness_.assign(size_t(nsec_), -1);
  cross_.assign(size_t(nsec_) + 1, 0);
  placed_stack_.clear();
  top_undo_.clear();
  floor_undo_.clear();
  excl_undo_.clear();
  hash_undo_.clear();
  scratch_.clear();
  memo_.assign(kMemoMinSlots, {0, 0});
  memo_used_ = 0;
  may_wait_ = false;
  h1_ = h2_ = 0;
  for (size_t b = 0; b < n; ++b) {
    const Item& it = items_[b];
    may_wait_ |= it.align > 1;
    for (int s = it.s0; s < it.s1; ++s) rem_[size_t(s)] += it.size;
    for (int t = it.s0 + 1; t < it.s1; ++t) ++cross_[size_t(t)];
    h1_ ^= mix(zkey_[4 * b]);
    h2_ ^= mix(zkey_[4 * b + 1]);
  }
  for (int s = 0; s < nsec_; ++s)
    if (rem_[size_t(s)] > cap_) return Result::Infeasible;
  tiebreak_ = rank_;
  for (uint64_t run = 0;; ++run) {
    if (run > 0) {
      std::vector<int> order(n);
      std::iota(order.begin(), order.end(), 0);
      std::mt19937_64 rng(run);
      std::shuffle(order.begin(), order.end(), rng);
      for (size_t r = 0; r < n; ++r) tiebreak_[size_t(order[r])] = int(r);
    }
    run_left_ = kRestartBase * luby(run + 1);
    out_of_budget_ = false;
    if (solve(0, nsec_, may_wait_ ? 0 : kNone)) {
      for (size_t b = 0; b < n; ++b) offsets_[size_t(items_[b].id_index)] = at_[b];
      return Result::Found;
    }
    if (!out_of_budget_) return Result::Infeasible;  // the whole tree was searched
    if (budget_->exhausted) return Result::OutOfBudget;
  }
}

// Capacity floors: in each section with unplaced items, the lowest offset one
// of them can take plus their total size must fit. Each section remembers the
// item that last showed it fits, which usually still does.
bool ComponentSearch::sections_fit(int lo, int hi, uint64_t m, uint64_t level) {
  auto lowest = [&](int c) {
    const uint64_t o = offset_of(c);
    return std::max(o, m) + (waiting(c, o, level) ? 1 : 0);
  };
  for (int s = lo; s < hi; ++s) {
    const uint64_t r = rem_[size_t(s)];
    if (r == 0) continue;
    const uint64_t limit = cap_ - r;  // >= m: checked by the caller
    if (floor_[size_t(s)] > limit) return false;
    const int w = witness_[size_t(s)];
    if (w >= 0 && !placed_[size_t(w)] && lowest(w) <= limit) continue;
    bool ok = false;
    for (int c : cover_[size_t(s)])
      if (!placed_[size_t(c)] && lowest(c) <= limit) {
        witness_[size_t(s)] = c;
        ok = true;
        break;
      }
    if (!ok) return false;
  }
  return true;
}

// Parts between boundaries no unplaced item crosses, keeping those with work (a
// section no unplaced item lives in is bounded by such boundaries). Returns their
// number; the first part is `first`, and when there are several, `more` holds
// them all (only then allocated).
int ComponentSearch::parts(int lo, int hi, Part& first, std::vector<Part>& more) const {
  int count = 0;
  for (int a = lo; a < hi;) {
    uint64_t l = rem_[size_t(a)];
    int b = a + 1;
    for (; b < hi && cross_[size_t(b)] > 0; ++b) l = std::max(l, rem_[size_t(b)]);
    if (l > 0) {
      if (count == 1) more.push_back(first);
      if (count == 0) first = {a, b, l};
      else more.push_back({a, b, l});
      ++count;
    }
    a = b;
  }
  return count;
}

// Independent parts, most loaded first: an infeasible part fails there soonest.
bool ComponentSearch::solve_parts(std::vector<Part>& parts, uint64_t level) {
  std::stable_sort(parts.begin(), parts.end(), [](const Part& x, const Part& y) { return x.load > y.load; });
  const size_t mark = placed_stack_.size();
  for (const Part& p : parts)
    if (!solve(p.lo, p.hi, level)) {
      unplace_to(mark);
      return false;
    }
  return true;
}

// The lowest offset m a free item of items [ib, ie) can take; pushes the free items
// at m (in start order) on scratch_ and says whether some item waits.
uint64_t ComponentSearch::lowest_offset(int ib, int ie, uint64_t level, bool& any_waiting) {
  const size_t base = scratch_.size();
  uint64_t m = kNone;
  int b = ib;
  while (b < ie && placed_[size_t(b)]) ++b;
  for (; b < ie; b = next_[size_t(b)]) {
    const uint64_t o = offset_of(b);
    if (waiting(b, o, level)) {
      any_waiting = true;
      if (!may_wait_ && o < m) m = o, scratch_.resize(base);  // its offset is still the lowest
      continue;
    }
    if (o < m) m = o, scratch_.resize(base);
    if (o == m) scratch_.push_back(b);
  }
  return m;
}

// Whether every waiting item of [ib, ie) may still be placed: with waiting, an
// unplaced item it conflicts with could lift it; without, an item excluded at m
// conflicts with one of the free items at m (scratch_[base, end)).
bool ComponentSearch::waiting_items_can_move(int ib, int ie, uint64_t level, size_t base, size_t end) const {
  int b = ib;
  while (b < ie && placed_[size_t(b)]) ++b;
  for (; b < ie; b = next_[size_t(b)]) {
    const uint64_t o = offset_of(b);
    if (!waiting(b, o, level)) continue;
    bool ok = false;
    if (may_wait_) {
      for (int y : conflicts_[size_t(b)])
        if (!placed_[size_t(y)]) {
          ok = true;
          break;
        }
    } else {
      const Item& it = items_[size_t(b)];
      for (size_t k = base; k < end && !ok; ++k) {
        const Item& c = items_[size_t(scratch_[k])];
        ok = c.s0 < it.s1 && it.s0 < c.s1;
      }
    }
    if (!ok) return false;
  }
  return true;
}

// Forced: without waiting, an item at m overlapping no other free item at m
// (the maximal set contains it); with waiting, an item no unplaced item
// conflicts with (nothing could ever lift it). -1: none.
int ComponentSearch::forced_item(size_t base, size_t end) const {
  if (!may_wait_) {
    int max_end = INT_MIN;
    for (size_t k = base; k < end; ++k) {
      const Item& it = items_[size_t(scratch_[k])];
      const int next_start = k + 1 < end ? items_[size_t(scratch_[k + 1])].s0 : INT_MAX;
      if (max_end <= it.s0 && next_start >= it.s1) return scratch_[k];
      max_end = std::max(max_end, it.s1);
    }
    return -1;
  }
  for (size_t k = base; k < end; ++k) {
    bool alone = true;
    for (int y : conflicts_[size_t(scratch_[k])])
      if (!placed_[size_t(y)]) {
        alone = false;
        break;
      }
    if (alone) return scratch_[k];
  }
  return -1;
}

// The choices among the free items at m (scratch_[base, end)), best first: filling
// a valley of the skyline, then levelling with a neighbour, then this run's
// tie-break order. The best one goes at m; else it is excluded at m and the next
// one goes there; and so on; in waiting mode, last, no more items at m at all.
bool ComponentSearch::branch(int lo, int hi, uint64_t m, size_t base, size_t end) {
  for (size_t k = base; k < end; ++k) {
    const Item& it = items_[size_t(scratch_[k])];
    if (it.twin_prev < 0 || placed_[size_t(it.twin_prev)]) scratch_.push_back(scratch_[k]);
  }
  const size_t cbeg = end, cend = scratch_.size();
  auto score = [&](int x) {
    const Item& c = items_[size_t(x)];
    const uint64_t top = m + c.size;
    const uint64_t left = c.s0 == 0 ? kNone : floor_[size_t(c.s0 - 1)];
    const uint64_t right = c.s1 == nsec_ ? kNone : floor_[size_t(c.s1)];
    return 4 * (int(left > m) + int(right > m)) + int(left == top) + int(right == top);
  };
  std::sort(scratch_.begin() + long(cbeg), scratch_.begin() + long(cend), [&](int x, int y) {
    const int sx = score(x), sy = score(y);
    return sx != sy ? sx > sy : tiebreak_[size_t(x)] < tiebreak_[size_t(y)];
  });
  const size_t excl_mark = excl_undo_.size();
  bool found = false;
  for (size_t c = cbeg; c < cend && !found && !out_of_budget_; ++c) {
    const int x = scratch_[c];
    const size_t mark = placed_stack_.size();
    place(x, m);
    if (solve(lo, hi, m)) found = true;
    else {
      unplace_to(mark);
      exclude(x, m);
    }
  }
  if (!found && may_wait_ && !out_of_budget_ && solve(lo, hi, m + 1)) found = true;
  unexclude_to(excl_mark);
  return found;
}

bool ComponentSearch::solve(int lo, int hi, uint64_t level) {
  Part first{0, 0, 0};
  std::vector<Part> more;
  const int count = parts(lo, hi, first, more);
  if (count == 0) return true;
  if (count > 1) return solve_parts(more, level);
  lo = first.lo, hi = first.hi;
  const uint64_t load = first.load;
  if (run_left_ == 0 || !budget_->spend()) {
    out_of_budget_ = true;
    return false;
  }
  --run_left_;
  const int ib = first_item_[size_t(lo)], ie = first_item_[size_t(hi)];
  const size_t base = scratch_.size();
  bool any_waiting = false;
  const uint64_t m = lowest_offset(ib, ie, level, any_waiting);
  const size_t end = scratch_.size();
  uint64_t k1 = h1_ ^ mix(uint64_t(lo) << 32 | uint64_t(hi)), k2 = h2_ + uint64_t(lo) * 0x9e3779b97f4a7c15ULL + uint64_t(hi);
  if (may_wait_) k1 ^= mix(level + 0x632be59bd9b4e019ULL);
  k2 |= 1;
  auto fail = [&](bool remember) {
    scratch_.resize(base);
    if (remember && !out_of_budget_) memo_add(k1, k2);
    return false;
  };
  if (base == end) return fail(true);  // only waiting items, nothing to lift them
  if (memo_has(k1, k2)) return fail(false);
  if (m + load > cap_ || !sections_fit(lo, hi, m, level)) return fail(true);
  if (any_waiting && !waiting_items_can_move(ib, ie, level, base, end)) return fail(true);
  if (const int forced = forced_item(base, end); forced >= 0) {
    scratch_.resize(base);
    const size_t mark = placed_stack_.size();
    place(forced, m);
    if (solve(lo, hi, m)) return true;
    unplace_to(mark);
    return fail(true);
  }
  if (!branch(lo, hi, m, base, end)) return fail(true);
  scratch_.resize(base);
  return true;
}

void ComponentSearch::place(int b, uint64_t at) {
  const Item& it = items_[size_t(b)];
  const uint64_t top = at + it.size;
  hash_undo_.push_back({h1_, h2_});
  h1_ ^= mix(zkey_[4 * size_t(b)] ^ at);
  h2_ ^= mix(zkey_[4 * size_t(b) + 1] + at);
  undo_mark_[size_t(b)] = top_undo_.size();
  for (int o : conflicts_[size_t(b)])
    if (!placed_[size_t(o)] && top_[size_t(o)] < top) {
      const uint64_t before = offset_of(o);
      top_undo_.push_back({o, top_[size_t(o)]});
      top_[size_t(o)] = top;
      const uint64_t after = offset_of(o);
      if (after != before) {
        h1_ ^= mix(zkey_[4 * size_t(o)] ^ before) ^ mix(zkey_[4 * size_t(o)] ^ after);
        h2_ ^= mix(zkey_[4 * size_t(o) + 1] + before) ^ mix(zkey_[4 * size_t(o) + 1] + after);
      }
    }
  for (int s = it.s0; s < it.s1; ++s) {
    rem_[size_t(s)] -= it.size;
    floor_undo_.push_back(floor_[size_t(s)]);
    floor_[size_t(s)] = top;
  }
  for (int t = it.s0 + 1; t < it.s1; ++t) --cross_[size_t(t)];
  placed_[size_t(b)] = 1;
  at_[size_t(b)] = at;
  if (prev_[size_t(b)] >= 0) next_[size_t(prev_[size_t(b)])] = next_[size_t(b)];
  if (next_[size_t(b)] < int(items_.size())) prev_[size_t(next_[size_t(b)])] = prev_[size_t(b)];
  placed_stack_.push_back(b);
}

void ComponentSearch::unplace_to(size_t mark) {
  while (placed_stack_.size() > mark) {
    const int b = placed_stack_.back();
    placed_stack_.pop_back();
    const Item& it = items_[size_t(b)];
    if (prev_[size_t(b)] >= 0) next_[size_t(prev_[size_t(b)])] = b;
    if (next_[size_t(b)] < int(items_.size())) prev_[size_t(next_[size_t(b)])] = b;
    placed_[size_t(b)] = 0;
    for (int t = it.s0 + 1; t < it.s1; ++t) ++cross_[size_t(t)];
    for (int s = it.s1 - 1; s >= it.s0; --s) {
      floor_[size_t(s)] = floor_undo_.back();
      floor_undo_.pop_back();
      rem_[size_t(s)] += it.size;
    }
    while (top_undo_.size() > undo_mark_[size_t(b)]) {
      top_[size_t(top_undo_.back().first)] = top_undo_.back().second;
      top_undo_.pop_back();
    }
    h1_ = hash_undo_.back().first;
    h2_ = hash_undo_.back().second;
    hash_undo_.pop_back();
  }
}

// The fingerprint covers exclusions with the offset they were made at.
void ComponentSearch::exclude(int b, uint64_t at) {
  const uint64_t was = excl_[size_t(b)];
  excl_undo_.push_back({b, was});
  if (was != kNone) h1_ ^= mix(zkey_[4 * size_t(b) + 2] ^ was), h2_ ^= mix(zkey_[4 * size_t(b) + 3] + was);
  excl_[size_t(b)] = at;
  h1_ ^= mix(zkey_[4 * size_t(b) + 2] ^ at);
  h2_ ^= mix(zkey_[4 * size_t(b) + 3] + at);
}

void ComponentSearch::unexclude_to(size_t mark) {
  while (excl_undo_.size() > mark) {
    const int b = excl_undo_.back().first;
    const uint64_t now = excl_[size_t(b)], was = excl_undo_.back().second;
    excl_undo_.pop_back();
    h1_ ^= mix(zkey_[4 * size_t(b) + 2] ^ now);
    h2_ ^= mix(zkey_[4 * size_t(b) + 3] + now);
    if (was != kNone) h1_ ^= mix(zkey_[4 * size_t(b) + 2] ^ was), h2_ ^= mix(zkey_[4 * size_t(b) + 3] + was);
    excl_[size_t(b)] = was;
  }
}

bool ComponentSearch::memo_has(uint64_t k1, uint64_t k2) const {
  const size_t mask = memo_.size() - 1;
  for (size_t p = 0; p < kMemoProbe; ++p) {
    const auto& slot = memo_[(k1 + p) & mask];
    if (slot.second == 0) return false;
    if (slot.first == k1 && slot.second == k2) return true;
  }
  return false;
}

void ComponentSearch::memo_add(uint64_t k1, uint64_t k2) {
  if (memo_used_ * 2 >= memo_.size() && memo_.size() < kMemoMaxSlots) {
    // Grow: small searches stay cheap, long ones get the full table.
    std::vector<std::pair<uint64_t, uint64_t>> old(memo_.size() * 2, {0, 0});
    old.swap(memo_);
    memo_used_ = 0;
    for (const auto& e : old)
      if (e.second != 0) memo_add(e.first, e.second);
  }
  const size_t mask = memo_.size() - 1;
  for (size_t p = 0; p < kMemoProbe; ++p) {
    auto& slot = memo_[(k1 + p) & mask];
    if (slot.second == 0 || (slot.first == k1 && slot.second == k2)) {
      memo_used_ += slot.second == 0;
      slot = {k1, k2};
      return;
    }
  }
  memo_[k1 & mask] = {k1, k2};  // full run: replace (a forgotten failure is only re-searched)
}

}  // namespace kiln::planner
