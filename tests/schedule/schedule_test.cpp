// The scheduler (generator/schedule/schedule.h): the search's order against brute
// force over every topological order of small random graphs.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <numeric>
#include <random>

#include "schedule/schedule.h"

using namespace kiln::schedule;

namespace {

// A random DAG: step i writes storage i (some of them persistent), reads 1-3
// storages of earlier steps; some steps may run in place over one read; scratch.
Problem random_problem(std::mt19937& rng, int n) {
  Problem p;
  p.storages.resize(size_t(n));
  p.steps.resize(size_t(n));
  for (int i = 0; i < n; ++i) {
    Step& st = p.steps[size_t(i)];
    p.storages[size_t(i)].bytes = 16 * (1 + rng() % 8);
    p.storages[size_t(i)].producers = {i};
    if (i > 0) {
      const int reads = 1 + int(rng() % 3);
      for (int k = 0; k < reads; ++k) {
        const int r = int(rng() % unsigned(i));
        if (std::find(st.reads.begin(), st.reads.end(), r) != st.reads.end()) continue;
        st.reads.push_back(r);
        st.deps.push_back(r);
        p.storages[size_t(r)].users.push_back(i);
      }
      if (rng() % 3 == 0) {  // in place over its first read (same size)
        p.storages[size_t(i)].bytes = p.storages[size_t(st.reads[0])].bytes;
        st.in_place.push_back({st.reads[0], i});
      }
    }
    st.writes = {i};
    st.scratch = rng() % 4 == 0 ? 8 * (rng() % 5) : 0;
  }
  p.storages[size_t(n - 1)].persistent = true;
  if (n > 3 && rng() % 2) p.storages[size_t(n / 2)].persistent = true;
  return p;
}

uint64_t brute_force_min(const Problem& p) {
  const int n = int(p.steps.size());
  std::vector<int> order;
  std::vector<bool> done(size_t(n), false);
  uint64_t best = UINT64_MAX;
  std::function<void()> rec = [&]() {
    if (int(order.size()) == n) {
      best = std::min(best, evaluate_peak(p, order));
      return;
    }
    for (int i = 0; i < n; ++i) {
      if (done[size_t(i)]) continue;
      bool ready = true;
      for (int d : p.steps[size_t(i)].deps) ready = ready && done[size_t(d)];
      if (!ready) continue;
      done[size_t(i)] = true;
      order.push_back(i);
      rec();
      order.pop_back();
      done[size_t(i)] = false;
    }
  };
  rec();
  return best;
}

}  // namespace

TEST(PlannerSchedule, SearchIsOptimalAgainstBruteForce) {
  std::mt19937 rng(7);
  for (int t = 0; t < 300; ++t) {
    const int n = 2 + int(rng() % 8);
    const Problem p = random_problem(rng, n);
    const Result r = min_peak_order(p);
    ASSERT_TRUE(r.exact);
    EXPECT_EQ(evaluate_peak(p, r.order), r.peak) << "instance " << t;
    EXPECT_EQ(r.peak, brute_force_min(p)) << "instance " << t;
    EXPECT_LE(order_independent_bound(p), r.peak) << "instance " << t;
  }
}

TEST(PlannerSchedule, BeamSearchGivesAValidOrder) {
  std::mt19937 rng(11);
  for (int t = 0; t < 100; ++t) {
    const Problem p = random_problem(rng, 9);
    const Result exact = min_peak_order(p);
    const Result beam = min_peak_order(p, 1);
    EXPECT_EQ(evaluate_peak(p, beam.order), beam.peak);
    EXPECT_GE(beam.peak, exact.peak);
  }
}

// Sixty independent steps joined at the end: every state of the search has dozens
// of steps ready. The default search stays within its budget (it visited tens of
// millions of states with a per-layer cap alone) and still returns a valid order.
TEST(PlannerSchedule, WideProblemStaysWithinTheSearchBudget) {
  std::mt19937 rng(5);
  Problem p;
  const int width = 60;
  std::vector<int> leaves, deps;
  for (int i = 0; i < width; ++i) {
    p.storages.push_back({uint64_t(1 + rng() % 64), {i}, {width}, false});
    leaves.push_back(i);
    deps.push_back(i);
    p.steps.push_back({{}, {}, {i}, uint64_t(rng() % 32), {}});
  }
  p.storages.push_back({8, {width}, {}, true});
  p.steps.push_back({deps, leaves, {width}, 0, {}});
  const Result r = min_peak_order(p);
  EXPECT_LE(r.states, 400000u);
  EXPECT_FALSE(r.exact);
  EXPECT_EQ(evaluate_peak(p, r.order), r.peak);
  EXPECT_EQ(r.order.back(), width);
}

// Two branches from x, each a big tensor reduced to a small one, joined at the end.
// The program order (both big ones first) holds both big tensors at once; running
// one branch to its small result before the other does not.
TEST(PlannerSchedule, RunsABranchToItsEndFirst) {
  Problem p;
  auto storage = [&](uint64_t bytes, std::vector<int> producers, std::vector<int> users) {
    p.storages.push_back({bytes, std::move(producers), std::move(users), false});
    return int(p.storages.size()) - 1;
  };
  // steps: 0 x; 1 a = f(x); 2 b = g(x); 3 a2 = h(a); 4 b2 = k(b); 5 y = join(a2, b2)
  const int x = storage(100, {0}, {1, 2});
  const int a = storage(1000, {1}, {3});
  const int b = storage(1000, {2}, {4});
  const int a2 = storage(10, {3}, {5});
  const int b2 = storage(10, {4}, {5});
  const int y = storage(10, {5}, {});
  p.storages[size_t(y)].persistent = true;
  p.steps = {{{}, {}, {x}, 0, {}},       {{0}, {x}, {a}, 0, {}},       {{0}, {x}, {b}, 0, {}},
             {{1}, {a}, {a2}, 0, {}},    {{2}, {b}, {b2}, 0, {}},      {{3, 4}, {a2, b2}, {y}, 0, {}}};
  EXPECT_EQ(evaluate_peak(p, {0, 1, 2, 3, 4, 5}), 2100u);
  const Result r = min_peak_order(p);
  EXPECT_EQ(r.peak, 1110u);  // x + a + ... then a2 + x + b
  EXPECT_EQ(r.order, (std::vector<int>{0, 1, 3, 2, 4, 5}));
  EXPECT_EQ(order_independent_bound(p), 1100u);
}

TEST(PlannerSchedule, InPlaceStepAddsNothing) {
  Problem p;
  p.storages = {{64, {0}, {1}, false}, {64, {1}, {}, true}};
  p.steps = {{{}, {}, {0}, 0, {}}, {{0}, {0}, {1}, 16, {{0, 1}}}};
  EXPECT_EQ(evaluate_peak(p, {0, 1}), 80u);
  EXPECT_EQ(order_independent_bound(p), 80u);
}

TEST(PlannerSchedule, RejectsCyclesAndBadOrders) {
  Problem p;
  p.storages = {{8, {0}, {1}, false}, {8, {1}, {0}, false}};
  p.steps = {{{1}, {1}, {0}, 0, {}}, {{0}, {0}, {1}, 0, {}}};
  EXPECT_THROW(min_peak_order(p), std::invalid_argument);
  Problem q;
  q.storages = {{8, {0}, {1}, false}, {8, {1}, {}, true}};
  q.steps = {{{}, {}, {0}, 0, {}}, {{0}, {0}, {1}, 0, {}}};
  EXPECT_THROW(evaluate_peak(q, {1, 0}), std::invalid_argument);
  EXPECT_THROW(evaluate_peak(q, {0}), std::invalid_argument);
}
