#include "schedule/schedule.h"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

namespace kiln::schedule {

namespace {

using Bits = std::vector<uint64_t>;

bool has(const Bits& b, int i) { return (b[size_t(i) >> 6] >> (i & 63)) & 1u; }
void set(Bits& b, int i) { b[size_t(i) >> 6] |= uint64_t(1) << (i & 63); }

// The hash of `b` with step i added, and whether `a` equals it: the search looks a
// candidate set up without building it (most candidates reach a set already seen,
// and a copy per candidate was most of the search's time).
uint64_t hash_with(const Bits& b, int i) {
  const size_t at = size_t(i) >> 6;
  uint64_t h = 1469598103934665603ull;
  for (size_t k = 0; k < b.size(); ++k) {
    const uint64_t w = k == at ? b[k] | uint64_t(1) << (i & 63) : b[k];
    h = (h ^ w) * 1099511628211ull ^ (h >> 29);
  }
  return h;
}

bool equals_with(const Bits& a, const Bits& b, int i) {
  const size_t at = size_t(i) >> 6;
  for (size_t k = 0; k < b.size(); ++k)
    if (a[k] != (k == at ? b[k] | uint64_t(1) << (i & 63) : b[k])) return false;
  return true;
}

// The problem with duplicates removed and the per-storage facts the walk needs.
struct Prepared {
  const Problem& p;
  std::vector<std::vector<int>> deps, reads, writes, touched;  // touched: reads + writes, distinct
  std::vector<std::vector<int>> users;                         // per storage, distinct
  uint64_t initial_live = 0;  // storages no step produces that someone still needs
  // run()'s working lists, kept so that a candidate costs no allocation.
  mutable std::vector<int> newly_, used_reads_, used_writes_;

  explicit Prepared(const Problem& prob) : p(prob) {
    auto uniq = [](std::vector<int> v) {
      std::sort(v.begin(), v.end());
      v.erase(std::unique(v.begin(), v.end()), v.end());
      return v;
    };
    for (const Step& s : p.steps) {
      deps.push_back(uniq(s.deps));
      reads.push_back(uniq(s.reads));
      writes.push_back(uniq(s.writes));
      std::vector<int> t = s.reads;
      t.insert(t.end(), s.writes.begin(), s.writes.end());
      touched.push_back(uniq(t));
    }
    for (const Storage& st : p.storages) {
      users.push_back(uniq(st.users));
      if (st.producers.empty() && (st.persistent || !st.users.empty())) initial_live += st.bytes;
    }
  }

  bool born(const Bits& done, int s) const {
    const auto& pr = p.storages[size_t(s)].producers;
    if (pr.empty()) return true;
    for (int q : pr)
      if (has(done, q)) return true;
    return false;
  }

  // All users of storage s other than `step` have run.
  bool others_done(const Bits& done, int s, int step) const {
    for (int u : users[size_t(s)])
      if (u != step && !has(done, u)) return false;
    return true;
  }

  bool ready(const Bits& done, int step) const {
    if (has(done, step)) return false;
    for (int d : deps[size_t(step)])
      if (!has(done, d)) return false;
    return true;
  }

  // Running `step` after the steps in `done` (live bytes `live`): the bytes held
  // while it runs, and the live bytes after it.
  std::pair<uint64_t, uint64_t> run(const Bits& done, uint64_t live, int step) const {
    const Step& st = p.steps[size_t(step)];
    uint64_t born_bytes = 0, saved = 0;
    std::vector<int>& newly = newly_;
    newly.clear();
    for (int w : writes[size_t(step)])
      if (!born(done, w)) {
        born_bytes += p.storages[size_t(w)].bytes;
        newly.push_back(w);
      }
    std::vector<int>&used_reads = used_reads_, &used_writes = used_writes_;
    used_reads.clear();
    used_writes.clear();
    for (const auto& [r, w] : st.in_place) {
      const Storage& rs = p.storages[size_t(r)];
      if (rs.persistent) continue;
      if (std::find(newly.begin(), newly.end(), w) == newly.end()) continue;
      if (std::find(used_reads.begin(), used_reads.end(), r) != used_reads.end()) continue;
      if (std::find(used_writes.begin(), used_writes.end(), w) != used_writes.end()) continue;
      if (!born(done, r) || !others_done(done, r, step)) continue;
      used_reads.push_back(r);
      used_writes.push_back(w);
      saved += std::min(rs.bytes, p.storages[size_t(w)].bytes);
    }
    const uint64_t during = live + born_bytes - saved + st.scratch;
    // After: storages this step was the last user of die (a new one nobody reads dies at once).
    uint64_t after = live + born_bytes;
    for (int s : touched[size_t(step)]) {
      const Storage& ss = p.storages[size_t(s)];
      if (ss.persistent) continue;
      const bool is_user = std::binary_search(users[size_t(s)].begin(), users[size_t(s)].end(), step);
      const bool newly_born = std::find(newly.begin(), newly.end(), s) != newly.end();
      if (is_user ? others_done(done, s, step) : (newly_born && users[size_t(s)].empty())) after -= ss.bytes;
    }
    return {during, after};
  }
};

}  // namespace

void check_problem(const Problem& p) {
  const int n = int(p.steps.size()), m = int(p.storages.size());
  auto bad = [](const std::string& what) { throw std::invalid_argument("schedule problem: " + what); };
  for (int i = 0; i < n; ++i) {
    const Step& s = p.steps[size_t(i)];
    for (int d : s.deps)
      if (d < 0 || d >= n || d == i) bad("step " + std::to_string(i) + " has a bad dependency");
    for (const auto* v : {&s.reads, &s.writes})
      for (int x : *v)
        if (x < 0 || x >= m) bad("step " + std::to_string(i) + " names a bad storage");
    for (const auto& [r, w] : s.in_place)
      if (r < 0 || r >= m || w < 0 || w >= m) bad("step " + std::to_string(i) + " has a bad in-place pair");
  }
  for (const Storage& st : p.storages)
    for (const auto* v : {&st.producers, &st.users})
      for (int x : *v)
        if (x < 0 || x >= n) bad("a storage names a bad step");
  // Kahn: every step must be reachable.
  std::vector<int> indeg(size_t(n), 0);
  std::vector<std::vector<int>> out(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    std::vector<int> d = p.steps[size_t(i)].deps;
    std::sort(d.begin(), d.end());
    d.erase(std::unique(d.begin(), d.end()), d.end());
    for (int x : d) out[size_t(x)].push_back(i), ++indeg[size_t(i)];
  }
  std::vector<int> q;
  for (int i = 0; i < n; ++i)
    if (indeg[size_t(i)] == 0) q.push_back(i);
  for (size_t k = 0; k < q.size(); ++k)
    for (int j : out[size_t(q[k])])
      if (--indeg[size_t(j)] == 0) q.push_back(j);
  if (int(q.size()) != n) bad("the dependencies have a cycle");
}

uint64_t evaluate_peak(const Problem& p, const std::vector<int>& order) {
  const int n = int(p.steps.size());
  if (int(order.size()) != n) throw std::invalid_argument("schedule order does not have every step once");
  Prepared pr(p);
  Bits done(size_t((n + 63) / 64), 0);
  uint64_t live = pr.initial_live, peak = live;
  for (int s : order) {
    if (s < 0 || s >= n || !pr.ready(done, s))
      throw std::invalid_argument("schedule order is not topological at step " + std::to_string(s));
    auto [during, after] = pr.run(done, live, s);
    peak = std::max({peak, during, after});
    live = after;
    set(done, s);
  }
  return peak;
}

uint64_t order_independent_bound(const Problem& p) {
  Prepared pr(p);
  uint64_t best = pr.initial_live;
  for (size_t i = 0; i < p.steps.size(); ++i) {
    const Step& st = p.steps[i];
    uint64_t sum = st.scratch, saved = 0;
    for (int s : pr.touched[i]) sum += p.storages[size_t(s)].bytes;
    std::vector<int> used;
    for (const auto& [r, w] : st.in_place)
      if (r != w && !p.storages[size_t(r)].persistent &&
          std::find(used.begin(), used.end(), r) == used.end() && std::find(used.begin(), used.end(), w) == used.end()) {
        used.push_back(r);
        used.push_back(w);
        saved += std::min(p.storages[size_t(r)].bytes, p.storages[size_t(w)].bytes);
      }
    best = std::max(best, sum - std::min(sum, saved));
  }
  return best;
}

// Candidate states the default search may visit in all (a wide 30-op graph
// visited 1.8M, half a second of a compile and minutes under ASan; the CNNs of the
// benchmarks need fewer than 100 and stay exact).
constexpr uint64_t kSearchBudget = 300000;

Result min_peak_order(const Problem& p, uint64_t cap) {
  check_problem(p);
  const int n = int(p.steps.size());
  Result res;
  if (n == 0) return res;
  // The default bounds the whole search, not only one layer: a layer costs its
  // states times the steps ready in each, and a wide graph (many independent ops)
  // has dozens ready at every state. Each layer's cap is what is left of the
  // budget, shared over the layers still to come at the last layer's branching.
  const bool budgeted = cap == 0;
  if (budgeted) cap = std::clamp<uint64_t>(40000000ull / (uint64_t(n) * uint64_t(n) + 1), 16, 8192);
  Prepared pr(p);
  struct State {
    Bits done;
    uint64_t peak, live;
    int parent, step;
  };
  const size_t words = size_t((n + 63) / 64);
  std::vector<std::vector<State>> layers(1);
  layers[0].push_back({Bits(words, 0), pr.initial_live, pr.initial_live, -1, -1});
  for (int k = 0; k < n; ++k) {
    std::vector<State> next;
    std::unordered_multimap<uint64_t, size_t> index;  // hash of a done-set -> its state in `next`
    const uint64_t states_before = res.states;
    auto& cur = layers[size_t(k)];
    for (size_t si = 0; si < cur.size(); ++si) {
      const State& s = cur[si];
      for (int i = 0; i < n; ++i) {
        if (!pr.ready(s.done, i)) continue;
        auto [during, after] = pr.run(s.done, s.live, i);
        const uint64_t peak = std::max({s.peak, during, after});
        ++res.states;
        const uint64_t h = hash_with(s.done, i);
        State* seen = nullptr;
        for (auto [it, end] = index.equal_range(h); it != end && !seen; ++it)
          if (equals_with(next[it->second].done, s.done, i)) seen = &next[it->second];
        if (!seen) {
          Bits d = s.done;
          set(d, i);
          index.emplace(h, next.size());
          next.push_back({std::move(d), peak, after, int(si), i});
        } else if (peak < seen->peak) {
          seen->peak = peak, seen->parent = int(si), seen->step = i;
        }
      }
    }
    if (next.empty()) throw std::invalid_argument("schedule problem: no step is ready (a dependency cycle?)");
    uint64_t layer_cap = cap;
    if (budgeted) {
      const uint64_t branching = std::max<uint64_t>(1, (res.states - states_before) / cur.size());
      const uint64_t left = res.states < kSearchBudget ? kSearchBudget - res.states : 0;
      const uint64_t layers_left = uint64_t(n - k - 1) + 1;
      layer_cap = std::clamp<uint64_t>(left / (layers_left * branching), 16, cap);
    }
    if (next.size() > layer_cap) {
      res.exact = false;
      std::vector<size_t> idx(next.size());
      for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
      std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
        return next[a].peak != next[b].peak ? next[a].peak < next[b].peak : next[a].live < next[b].live;
      });
      idx.resize(size_t(layer_cap));
      std::sort(idx.begin(), idx.end());
      std::vector<State> kept;
      for (size_t i : idx) kept.push_back(std::move(next[i]));
      next = std::move(kept);
    }
    // The done-sets of the previous layer are no longer needed (only parent links).
    for (State& s : cur) Bits().swap(s.done);
    layers.push_back(std::move(next));
  }
  // Every state of the last layer has all steps done; there is exactly one.
  const State* s = &layers[size_t(n)][0];
  res.peak = s->peak;
  res.order.assign(size_t(n), -1);
  for (int k = n; k > 0; --k) {
    res.order[size_t(k - 1)] = s->step;
    s = &layers[size_t(k - 1)][size_t(s->parent)];
  }
  return res;
}

}  // namespace kiln::schedule
