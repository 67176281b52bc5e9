// State buffers (BufferKind::State: a model's variables, kept between runs) take
// bytes no other buffer of their pool ever uses, whatever the intervals say: every
// algorithm plans them so, the verifier refuses a plan that shares them, and the
// pool's size counts them on top of the per-run peak.
#include <gtest/gtest.h>

#include "planner/planner.h"

namespace kiln::planner {
namespace {

const std::vector<std::string> kAlgorithms = {"greedy-by-size", "greedy-by-conflicts", "greedy-by-area",
                                              "greedy-by-lifetime", "hill-climb", "exact", "auto"};

BufferInfo buffer(const std::string& name, uint64_t size, int64_t first, int64_t last, BufferKind kind) {
  BufferInfo b;
  b.name = name;
  b.size_bytes = size;
  b.first = first;
  b.last = last;
  b.alignment = 4;
  b.kind = kind;
  b.pool_candidates = {0};
  return b;
}

// Two activations live at different steps, and a state read only at step 1 (as
// bufferization could describe it): as intervals they would all share one offset.
PlanProblem problem_with_state() {
  PlanProblem p;
  Pool pool;
  pool.name = "ws";
  p.pools.push_back(pool);
  p.buffers = {buffer("early", 64, 0, 1, BufferKind::Activation), buffer("state", 32, 1, 2, BufferKind::State),
               buffer("late", 64, 2, 3, BufferKind::Activation)};
  for (size_t i = 0; i < p.buffers.size(); ++i) p.buffers[i].id = int(i);
  return p;
}

bool share_bytes(const Plan& plan, const PlanProblem& p, size_t a, size_t b) {
  const auto &x = plan.placements[a], &y = plan.placements[b];
  return x.pool == y.pool && x.offset < y.offset + p.buffers[b].size_bytes &&
         y.offset < x.offset + p.buffers[a].size_bytes;
}

TEST(StatePlacement, NoAlgorithmReusesAStateBuffersBytes) {
  const PlanProblem p = problem_with_state();
  for (const auto& a : kAlgorithms) {
    PlannerOptions o;
    o.algorithm = a;
    o.budget_ms = 200;
    const Plan plan = plan_memory(p, o);
    EXPECT_EQ(verify_plan(p, plan), "") << a;
    EXPECT_FALSE(share_bytes(plan, p, 1, 0)) << a;
    EXPECT_FALSE(share_bytes(plan, p, 1, 2)) << a;
    // The activations still share theirs: 64 for them, 32 for the state.
    EXPECT_EQ(plan.pools[0].size_bytes, 96u) << a;
  }
}

TEST(StatePlacement, TheSameProblemWithoutStateSharesEverything) {
  PlanProblem p = problem_with_state();
  p.buffers[1].kind = BufferKind::Activation;
  PlannerOptions o;
  o.algorithm = "exact";
  EXPECT_EQ(plan_memory(p, o).pools[0].size_bytes, 64u);
}

TEST(StatePlacement, VerifierRefusesABufferOverStateLiveAtAnotherStep) {
  const PlanProblem p = problem_with_state();
  Plan plan;
  plan.placements = {{0, 0}, {0, 0}, {0, 0}};  // all at offset 0: fine as intervals go
  plan.pools = {{64, 64}};
  const std::string why = verify_plan(p, plan);
  EXPECT_NE(why.find("state kept between runs"), std::string::npos) << why;
  plan.placements[1].offset = 64;  // the state on bytes of its own
  plan.pools[0].size_bytes = 96;
  EXPECT_EQ(verify_plan(p, plan), "");
}

TEST(StatePlacement, ExclusiveSidesDoNotLetABufferOntoState) {
  PlanProblem p = problem_with_state();
  p.buffers[0].exclusive = {{0, 1}};
  p.buffers[1].exclusive = {{0, 2}};  // a tag on state means nothing: it lives in every run
  PlannerOptions o;
  o.algorithm = "greedy-by-size";
  const Plan plan = plan_memory(p, o);
  EXPECT_EQ(verify_plan(p, plan), "");
  EXPECT_FALSE(share_bytes(plan, p, 1, 0));
}

}  // namespace
}  // namespace kiln::planner
