// Property tests of the memory planner on random instances: every algorithm's
// plans pass the independent verifier, `exact` matches a brute force on tiny
// instances and never loses to the greedies, spill order, capacity errors, pins,
// determinism; plus `exact` on a standard challenging instance when present.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>

#include "planner/conflicts.h"
#include "planner/csv_instance.h"
#include "planner/plan_report.h"
#include "planner/planner.h"
#include "planner/pool_spec.h"

namespace kiln::planner {
namespace {

const std::vector<std::string> kAlgorithms = {"greedy-by-size", "greedy-by-conflicts", "greedy-by-area",
                                              "greedy-by-lifetime", "hill-climb", "exact", "auto"};

Pool pool(const std::string& name, std::optional<uint64_t> capacity = std::nullopt, uint32_t align = 16) {
  Pool p;
  p.name = name;
  p.capacity = capacity;
  p.alignment = align;
  return p;
}

BufferInfo buffer(const std::string& name, uint64_t size, int64_t first, int64_t last, std::vector<int> pools = {0},
                  uint32_t align = 1) {
  BufferInfo b;
  b.name = name;
  b.size_bytes = size;
  b.first = first;
  b.last = last;
  b.alignment = align;
  b.pool_candidates = std::move(pools);
  return b;
}

// A random schedule of `n` buffers over `steps` steps: mostly short-lived, some
// long skips; sizes and alignments vary; `pools` unbounded pools, each buffer a
// random non-empty ordered subset of them as candidates.
PlanProblem random_problem(std::mt19937_64& rng, int n, int steps, int pools, bool aligned) {
  PlanProblem p;
  for (int i = 0; i < pools; ++i) p.pools.push_back(pool("p" + std::to_string(i)));
  for (int i = 0; i < n; ++i) {
    int64_t first = int64_t(rng() % uint64_t(steps));
    int64_t len = rng() % 4 == 0 ? 1 + int64_t(rng() % uint64_t(steps)) : 1 + int64_t(rng() % 3);
    uint64_t size = rng() % 7 == 0 ? 0 : 1 + rng() % 200;
    uint32_t align = aligned ? (1u << (rng() % 5)) : 1;
    std::vector<int> cand(static_cast<size_t>(pools));
    std::iota(cand.begin(), cand.end(), 0);
    std::shuffle(cand.begin(), cand.end(), rng);
    cand.resize(1 + rng() % size_t(pools));
    auto b = buffer("b" + std::to_string(i), size, first, std::min<int64_t>(first + len, steps), cand, align);
    b.id = i;
    p.buffers.push_back(b);
  }
  return p;
}

Plan run(const PlanProblem& p, const std::string& algorithm, int64_t budget_ms = 2000) {
  PlannerOptions o;
  o.algorithm = algorithm;
  o.budget_ms = budget_ms;
  return plan_memory(p, o);
}

// Independent optimum of a single-pool instance: first fit (lowest free aligned
// address) in every order of the buffers. Placing the buffers of an optimal plan
// in the order of their addresses puts each at or below its optimal address, so
// the minimum over all orders is the optimum.
uint64_t brute_force_height(const PlanProblem& p) {
  std::vector<int> order(p.buffers.size());
  std::iota(order.begin(), order.end(), 0);
  uint64_t best = UINT64_MAX;
  do {
    std::vector<uint64_t> off(order.size(), 0);
    std::vector<char> done(order.size(), 0);
    uint64_t height = 0;
    for (int i : order) {
      const auto& b = p.buffers[size_t(i)];
      uint64_t at = 0;
      for (bool moved = true; moved;) {
        moved = false;
        for (size_t j = 0; j < order.size(); ++j) {
          const auto& o = p.buffers[j];
          if (!done[j] || b.size_bytes == 0 || o.size_bytes == 0 || !(b.first < o.last && o.first < b.last)) continue;
          bool exclusive = false;
          for (const auto& x : b.exclusive)
            for (const auto& y : o.exclusive) exclusive |= x.group == y.group && x.side != y.side;
          if (exclusive) continue;
          if (at < off[j] + o.size_bytes && off[j] < at + b.size_bytes) {
            at = (off[j] + o.size_bytes + b.alignment - 1) / b.alignment * b.alignment;
            moved = true;
          }
        }
      }
      off[size_t(i)] = at;
      done[size_t(i)] = 1;
      height = std::max(height, at + b.size_bytes);
    }
    best = std::min(best, height);
  } while (std::next_permutation(order.begin(), order.end()));
  return best;
}

TEST(Planner, EveryAlgorithmPassesTheVerifierOnRandomInstances) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 25; ++round) {
    PlanProblem p = random_problem(rng, 5 + int(rng() % 60), 4 + int(rng() % 40), 1 + int(rng() % 3), round % 2 == 0);
    for (const auto& a : kAlgorithms) {
      Plan plan = run(p, a, 30);
      EXPECT_EQ(verify_plan(p, plan), "") << a << " round " << round;
      for (size_t q = 0; q < p.pools.size(); ++q) EXPECT_GE(plan.pools[q].size_bytes, plan.pools[q].lower_bound) << a;
    }
  }
}

// Buffers live together start at multiples of the smallest alignment among them,
// so all but the topmost take their size rounded up to it: 16 + 32 + 48 - 12.
// A pool of constants padded for alignment is then seen to be at its bound, and
// `auto` stops after the greedies instead of searching.
TEST(Planner, LowerBoundCountsTheAlignmentPaddingOfBuffersLiveTogether) {
  PlanProblem p;
  p.pools.push_back(pool("flash"));
  p.buffers = {buffer("w0", 4, 0, 3, {0}, 16), buffer("w1", 20, 0, 3, {0}, 16), buffer("w2", 36, 0, 3, {0}, 16),
               buffer("later", 100, 3, 4, {0}, 16)};
  Plan plan = run(p, "auto");
  EXPECT_EQ(verify_plan(p, plan), "");
  EXPECT_EQ(plan.pools[0].lower_bound, 100u);  // the later, larger step
  p.buffers.pop_back();
  plan = run(p, "auto");
  EXPECT_EQ(plan.pools[0].lower_bound, 84u);
  EXPECT_EQ(plan.pools[0].size_bytes, 84u);
  EXPECT_TRUE(plan.proven_optimal);
  EXPECT_EQ(plan.algorithm, "auto (greedy-by-size)");
}

TEST(Planner, VerifierCatchesOverlapMisalignmentAndCapacity) {
  PlanProblem p;
  p.pools.push_back(pool("sram", 100));
  p.buffers = {buffer("a", 40, 0, 2, {0}, 8), buffer("b", 40, 1, 3, {0}, 8)};
  Plan plan = run(p, "greedy-by-size");
  ASSERT_EQ(verify_plan(p, plan), "");
  Plan overlap = plan;
  overlap.placements[1].offset = overlap.placements[0].offset + 8;
  EXPECT_NE(verify_plan(p, overlap).find("overlap"), std::string::npos);
  Plan misaligned = plan;
  misaligned.placements[1].offset = 44;
  EXPECT_NE(verify_plan(p, misaligned).find("aligned"), std::string::npos);
  Plan over = plan;
  over.placements[1].offset = 64;
  over.pools[0].size_bytes = 104;
  EXPECT_NE(verify_plan(p, over).find("capacity"), std::string::npos);
}

TEST(Planner, ExactMatchesBruteForceOnTinyInstances) {
  std::mt19937_64 rng(11);
  int proven = 0;
  for (int round = 0; round < 150; ++round) {
    PlanProblem p = random_problem(rng, 2 + int(rng() % 6), 3 + int(rng() % 6), 1, round % 3 == 0);
    Plan plan = run(p, "exact");
    ASSERT_EQ(verify_plan(p, plan), "");
    EXPECT_TRUE(plan.proven_optimal) << "round " << round;
    proven += plan.proven_optimal;
    EXPECT_EQ(plan.pools[0].size_bytes, brute_force_height(p)) << "round " << round;
  }
  EXPECT_EQ(proven, 150);
}

// (Not compared with the stand-alone hill-climb: it climbs ten times longer than
// the climb exact starts from, and on random instances sometimes wins.)
TEST(Planner, ExactIsNeverWorseThanAnyGreedy) {
  std::mt19937_64 rng(13);
  for (int round = 0; round < 25; ++round) {
    PlanProblem p = random_problem(rng, 20 + int(rng() % 40), 10 + int(rng() % 30), 1, round % 2 == 1);
    Plan exact = run(p, "exact", 300);
    ASSERT_EQ(verify_plan(p, exact), "");
    for (const auto& a : kAlgorithms) {
      if (a == "exact" || a == "hill-climb") continue;
      EXPECT_LE(exact.pools[0].size_bytes, run(p, a, 300).pools[0].size_bytes) << a << " round " << round;
    }
  }
}

TEST(Planner, ExactReachesTheOptimumUnderATightCapacity) {
  // The capacity equals the lower bound: only a zero-waste arrangement fits.
  PlanProblem p;
  p.pools.push_back(pool("sram", 4));
  p.buffers = {buffer("a", 2, 0, 2), buffer("b", 1, 0, 1), buffer("c", 1, 1, 3), buffer("d", 2, 2, 4),
               buffer("e", 1, 0, 4), buffer("f", 1, 3, 4)};
  for (size_t i = 0; i < p.buffers.size(); ++i) p.buffers[i].id = int(i);
  Plan plan = run(p, "exact");
  EXPECT_EQ(verify_plan(p, plan), "");
  EXPECT_EQ(plan.pools[0].size_bytes, brute_force_height(p));
  EXPECT_TRUE(plan.proven_optimal);
}

TEST(Planner, SpillsToTheNextPoolInPriorityOrder) {
  PlanProblem p;
  p.pools = {pool("dtcm", 100), pool("sram", 1000), pool("ext")};
  // Three buffers live together: 60 fits dtcm, the next 60 does not and spills to
  // sram, a buffer preferring ext goes there first.
  p.buffers = {buffer("x", 60, 0, 3, {0, 1, 2}), buffer("y", 60, 0, 3, {0, 1, 2}), buffer("z", 10, 0, 3, {2, 0})};
  for (const auto& a : kAlgorithms) {
    Plan plan = run(p, a);
    ASSERT_EQ(verify_plan(p, plan), "") << a;
    EXPECT_EQ(plan.placements[0].pool, 0) << a;
    EXPECT_EQ(plan.placements[1].pool, 1) << a;
    EXPECT_EQ(plan.placements[2].pool, 2) << a;
  }
}

TEST(Planner, CapacityErrorNamesTheBufferItsLiveRangeAndEachShortfall) {
  PlanProblem p;
  p.pools = {pool("dtcm", 100), pool("sram", 120)};
  p.buffers = {buffer("act0", 90, 0, 4, {0, 1}), buffer("conv1_im2col", 80, 2, 5, {0, 1}),
               buffer("act1", 70, 3, 6, {0, 1})};
  for (const auto& a : kAlgorithms) {
    try {
      run(p, a, 200);
      ADD_FAILURE() << a << " did not fail";
    } catch (const PlanError& e) {
      std::string m = e.what();
      EXPECT_NE(m.find("'act1' (70 bytes, live in steps [3, 6))"), std::string::npos) << a << ": " << m;
      EXPECT_NE(m.find("pool 'dtcm' (capacity 100) is"), std::string::npos) << a << ": " << m;
      EXPECT_NE(m.find("pool 'sram' (capacity 120) is"), std::string::npos) << a << ": " << m;
      EXPECT_NE(m.find("bytes short"), std::string::npos) << a << ": " << m;
    }
  }
}

TEST(Planner, PinRestrictsPoolCandidates) {
  std::vector<Pool> pools = {pool("sram"), pool("dtcm", 4096)};
  PinRule rule = resolve_pin(PinRequest{"conv1*", {"dtcm"}, "test"}, pools);
  BufferInfo im2col = buffer("conv1_im2col", 100, 0, 1, {0, 1});
  BufferInfo other = buffer("conv2_out", 100, 0, 1, {0, 1});
  apply_pin(rule, &im2col, pools);
  apply_pin(rule, &other, pools);
  EXPECT_EQ(im2col.pool_candidates, std::vector<int>{1});
  EXPECT_EQ(other.pool_candidates, (std::vector<int>{0, 1}));
  PlanProblem p;
  p.pools = pools;
  p.buffers = {im2col, other};
  p.buffers[1].id = 1;
  for (const auto& a : kAlgorithms) {
    Plan plan = run(p, a);
    EXPECT_EQ(plan.placements[0].pool, 1) << a;  // sram had room, the pin wins
    EXPECT_EQ(plan.placements[1].pool, 0) << a;
  }
  try {
    resolve_pin(PinRequest{"conv1*", {"itcm"}, "--pin \"conv1*=itcm\""}, pools);
    ADD_FAILURE() << "a pin naming no pool";
  } catch (const PlanError& e) {
    EXPECT_EQ(std::string(e.what()), "--pin \"conv1*=itcm\": no pool named 'itcm'");
  }
}

TEST(Planner, PlansAreDeterministic) {
  std::mt19937_64 rng(17);
  for (int round = 0; round < 3; ++round) {
    PlanProblem p = random_problem(rng, 40 + int(rng() % 60), 30, 2, true);
    for (const auto& a : kAlgorithms) {
      Plan x = run(p, a, 50), y = run(p, a, 50);
      ASSERT_EQ(x.placements.size(), y.placements.size());
      for (size_t i = 0; i < x.placements.size(); ++i) {
        EXPECT_EQ(x.placements[i].pool, y.placements[i].pool) << a;
        EXPECT_EQ(x.placements[i].offset, y.placements[i].offset) << a;
      }
      EXPECT_EQ(plan_to_json(p, x, {}).dump(), plan_to_json(p, y, {}).dump()) << a;
    }
  }
}

TEST(Planner, UnknownAlgorithmIsAnError) {
  PlanProblem p;
  p.pools.push_back(pool("sram"));
  EXPECT_THROW(run(p, "first-fit"), PlanError);
}

TEST(Planner, CsvInstancesLoadAndRejectBadRows) {
  auto dir = std::filesystem::temp_directory_path() / "kiln_planner_test";
  std::filesystem::create_directories(dir);
  {
    std::ofstream(dir / "ok.csv") << "id,lower,upper,size\n0,0,2,10\n1,1,3,20\n2,2,4,10\n";
    std::ofstream(dir / "bad.csv") << "id,lower,upper,size\n0,5,2,10\n";
  }
  PlanProblem p = load_csv_instance((dir / "ok.csv").string(), 30);
  ASSERT_EQ(p.buffers.size(), 3u);
  Plan plan = run(p, "exact");
  EXPECT_EQ(verify_plan(p, plan), "");
  EXPECT_EQ(plan.pools[0].size_bytes, 30u);
  EXPECT_TRUE(plan.proven_optimal);
  EXPECT_THROW(load_csv_instance((dir / "bad.csv").string(), std::nullopt), PlanError);
}

// Mutually exclusive buffers (two arms of a run-time branch) share bytes even
// though their lifetimes overlap; the lower bound is the heavier arm plus what is
// live in every run; the verifier accepts the sharing and rejects it within one side.
TEST(Planner, MutuallyExclusiveBuffersShareBytes) {
  PlanProblem p;
  p.pools.push_back(pool("sram"));
  auto tagged = [](BufferInfo b, int group, int side) {
    b.exclusive.push_back({group, side});
    return b;
  };
  p.buffers = {buffer("x", 16, 0, 10), tagged(buffer("then_a", 400, 1, 3), 0, 1), tagged(buffer("then_b", 400, 2, 4), 0, 1),
               tagged(buffer("else_a", 600, 4, 6), 0, 2), tagged(buffer("else_b", 100, 5, 7), 0, 2),
               buffer("out", 16, 3, 10)};
  // Interleave the arms in time, as a scheduler may.
  p.buffers[3].first = 1, p.buffers[3].last = 4;
  for (size_t i = 0; i < p.buffers.size(); ++i) p.buffers[i].id = int(i);
  for (const auto& a : kAlgorithms) {
    Plan plan = run(p, a);
    EXPECT_EQ(verify_plan(p, plan), "") << a;
    // At step 2 the then arm holds x + then_a + then_b = 816, the else arm x + else_a = 616.
    EXPECT_EQ(plan.pools[0].lower_bound, 816u) << a;
    EXPECT_LE(plan.pools[0].size_bytes, a == "exact" || a == "auto" ? 816u : 832u) << a;  // untagged: > 1000
  }
  EXPECT_TRUE(run(p, "auto").proven_optimal);
  EXPECT_TRUE(run(p, "exact").proven_optimal);
  Plan plan = run(p, "greedy-by-size");
  Plan same = plan;  // then_a over then_b: live together in one run
  same.placements[2].offset = same.placements[1].offset;
  EXPECT_NE(verify_plan(p, same).find("overlap"), std::string::npos);
  Plan other = plan;  // else_a over then_a: never in one run
  other.placements[3].offset = other.placements[1].offset;
  other.pools[0].size_bytes = std::max(other.pools[0].size_bytes, other.placements[3].offset + 600);
  EXPECT_TRUE(verify_plan(p, other).find("then_a") == std::string::npos) << verify_plan(p, other);
  // Without the tags the arms are summed.
  for (auto& b : p.buffers) b.exclusive.clear();
  EXPECT_GT(run(p, "exact").pools[0].size_bytes, 1000u);
}

// Random instances with nested exclusive groups: every plan passes the verifier,
// is at or above the lower bound and at or above the brute-force optimum; a plan
// claimed optimal is the optimum.
TEST(Planner, ExclusiveGroupsOnRandomInstances) {
  std::mt19937_64 rng(17);
  for (int round = 0; round < 120; ++round) {
    const bool tiny = round % 2 == 0;
    PlanProblem p = tiny ? random_problem(rng, 2 + int(rng() % 6), 3 + int(rng() % 6), 1, round % 3 == 0)
                         : random_problem(rng, 10 + int(rng() % 40), 8 + int(rng() % 20), 1 + int(rng() % 2), true);
    for (auto& b : p.buffers) {
      if (rng() % 3 == 0) continue;
      b.exclusive.push_back({0, 1 + int(rng() % 2)});
      if (rng() % 3 == 0) b.exclusive.push_back({1 + int(rng() % 2), 1 + int(rng() % 2)});
    }
    for (const auto& a : kAlgorithms) {
      Plan plan = run(p, a, 30);
      ASSERT_EQ(verify_plan(p, plan), "") << a << " round " << round;
      for (size_t q = 0; q < p.pools.size(); ++q) EXPECT_GE(plan.pools[q].size_bytes, plan.pools[q].lower_bound) << a;
      if (tiny) {
        const uint64_t optimum = brute_force_height(p);
        EXPECT_GE(plan.pools[0].size_bytes, optimum) << a << " round " << round;
        EXPECT_GE(optimum, plan.pools[0].lower_bound) << a << " round " << round;
        if (plan.proven_optimal) {
          EXPECT_EQ(plan.pools[0].size_bytes, optimum) << a << " round " << round;
        }
      }
    }
  }
}

// The standard challenging instances (MiniMalloc's benchmark set, each feasible
// at 1,048,576 bytes, tests/data/dsa-challenging):
// `exact` must fit each within that capacity. The quick ones run with the unit
// tests; all eleven only with KILN_PLANNER_SLOW set (their times are `make
// bench` numbers, not test assertions).
class ChallengingInstance : public ::testing::TestWithParam<const char*> {};

TEST_P(ChallengingInstance, ExactFitsWithinTheCapacity) {
  const std::string name = GetParam();
  // The instances the exact search settles in well under a second stay in ctest;
  // the rest (D, I, J, K take 0.5-8 s) are measured by `make bench`.
  const bool quick = std::string("ABCEFGH").find(name) != std::string::npos;
  if (!quick && !std::getenv("KILN_PLANNER_SLOW")) GTEST_SKIP() << "slow instance: set KILN_PLANNER_SLOW=1 (or make bench)";
  std::filesystem::path f = std::filesystem::path(KILN_TEST_DATA_DIR) / "dsa-challenging" / (name + ".1048576.csv");
  PlanProblem p = load_csv_instance(f.string(), 1048576);
  Plan plan = run(p, "exact", 5000);  // kiln plan's default budget
  EXPECT_EQ(verify_plan(p, plan), "");
  EXPECT_LE(plan.pools[0].size_bytes, 1048576u);
}

INSTANTIATE_TEST_SUITE_P(DsaChallenging, ChallengingInstance,
                         ::testing::Values("A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K"),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace kiln::planner
