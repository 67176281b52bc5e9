// Liveness (bufferize/internal/liveness.h): values' last uses with loop regions,
// and buffers' live intervals and run-time If sides from a built program.
#include <gtest/gtest.h>

#include <climits>
#include <map>

#include "../support/graph_builder.h"
#include "bufferize/internal/liveness.h"
#include "ir/loop_region.h"

namespace kiln::bufferize_internal {
namespace {

using G = test_support::GraphBuilder;

std::map<const Node*, int64_t> steps_of(const Graph& g) {
  std::map<const Node*, int64_t> s;
  int64_t i = 0;
  for (const auto& n : g.nodes) s[n.get()] = i++;
  return s;
}

TEST(ValueLastUses, AValueReadInsideALoopRegionLivesToItsEnd) {
  G t;
  Value* x = t.input("x", {4});
  Value* a = t.val("a", {4});
  t.op("Relu", "relu", {x}, {a});                                          // step 0
  Value* iter = t.val("iter", {}, DType::Int64);
  Value* go = t.val("go", {}, DType::Bool);
  Value* s = t.val("s", {4});
  t.op(kLoopBeginOp, "begin", {nullptr, nullptr, x}, {iter, go, s});     // step 1
  Value* next = t.val("next", {4});
  t.op("Add", "add", {s, a}, {next});                                      // step 2: reads a
  Value* unused = t.val("unused", {4});
  t.op("Neg", "neg", {next}, {unused});                                    // step 3
  Value* y = t.val("y", {4});
  t.op(kLoopEndOp, "end", {iter, go, s, go, next}, {y})->attrs["carried"] = int64_t(1);  // step 4
  t.output(y);
  const auto last = value_last_uses(t.g, steps_of(t.g));
  EXPECT_EQ(last.at(a), 4) << "read by every iteration: until the End";
  EXPECT_EQ(last.at(x), 1) << "read by the Begin only (the initial value)";
  EXPECT_EQ(last.at(next), 4);
  EXPECT_EQ(last.at(unused), -1);
  EXPECT_EQ(last.at(y), LLONG_MAX);
}

TEST(ValueLastUses, NestedRegionsExtendToTheOuterEnd) {
  G t;
  Value* x = t.input("x", {4});
  Value* a = t.val("a", {4});
  t.op("Relu", "relu", {x}, {a});  // step 0
  Value* i1 = t.val("i1", {}, DType::Int64);
  Value* g1 = t.val("g1", {}, DType::Bool);
  Value* s1 = t.val("s1", {4});
  t.op(kLoopBeginOp, "outer_begin", {nullptr, nullptr, x}, {i1, g1, s1});  // step 1
  Value* i2 = t.val("i2", {}, DType::Int64);
  Value* g2 = t.val("g2", {}, DType::Bool);
  Value* s2 = t.val("s2", {4});
  t.op(kLoopBeginOp, "inner_begin", {nullptr, nullptr, s1}, {i2, g2, s2});  // step 2
  Value* n2 = t.val("n2", {4});
  t.op("Add", "add", {s2, a}, {n2});  // step 3
  Value* f2 = t.val("f2", {4});
  t.op(kLoopEndOp, "inner_end", {i2, g2, s2, g2, n2}, {f2})->attrs["carried"] = int64_t(1);  // step 4
  Value* y = t.val("y", {4});
  t.op(kLoopEndOp, "outer_end", {i1, g1, s1, g1, f2}, {y})->attrs["carried"] = int64_t(1);  // step 5
  t.output(y);
  const auto last = value_last_uses(t.g, steps_of(t.g));
  EXPECT_EQ(last.at(a), 5) << "computed before both regions: read by every outer iteration";
  EXPECT_EQ(last.at(s1), 5);
}

// A program of `n` ops with `buffers` buffers, ops given by hand.
BufferizedProgram program(size_t buffers, size_t n) {
  BufferizedProgram p;
  for (size_t i = 0; i < buffers; ++i) {
    Buffer b;
    b.id = int(i);
    b.name = "b" + std::to_string(i);
    b.size_bytes = 16;
    p.buffers.push_back(b);
  }
  p.ops.resize(n);
  for (size_t i = 0; i < n; ++i) p.ops[i].label = "op" + std::to_string(i);
  return p;
}

TEST(BufferLiveness, IntervalsFromTheOpsThatTouchEachBuffer) {
  BufferizedProgram p = program(5, 3);
  p.buffers[3].kind = BufferKind::Input;
  p.ops[0].inputs = {{3, 0}};
  p.ops[0].outputs = {{0, 0}};
  p.ops[0].scratch = {{2, 0}};
  p.ops[1].inputs = {{0, 0}};
  p.ops[1].outputs = {{1, 0}};
  p.ops[2].inputs = {{1, 0}, {-1, 0}};  // an omitted input
  compute_buffer_liveness(p);
  EXPECT_EQ(std::make_pair(p.buffers[0].first, p.buffers[0].last), std::make_pair(int64_t(0), int64_t(2)));
  EXPECT_EQ(std::make_pair(p.buffers[1].first, p.buffers[1].last), std::make_pair(int64_t(1), int64_t(3)));
  EXPECT_EQ(std::make_pair(p.buffers[2].first, p.buffers[2].last), std::make_pair(int64_t(0), int64_t(1)));
  EXPECT_EQ(std::make_pair(p.buffers[3].first, p.buffers[3].last), std::make_pair(int64_t(0), int64_t(3)))
      << "caller memory: the whole run";
  EXPECT_EQ(std::make_pair(p.buffers[4].first, p.buffers[4].last), std::make_pair(int64_t(0), int64_t(0)))
      << "never referenced";
}

TEST(BufferLiveness, LoopRegionsStretchOuterBuffersAndScanOutputs) {
  // op0 writes b0; op1 Begin; op2 reads b0, writes b1; op3 End writes b2 (carried)
  // and b3 (a scan output); op4 reads b3.
  Node end_node;
  end_node.op_type = kLoopEndOp;
  end_node.attrs["carried"] = int64_t(1);
  BufferizedProgram p = program(4, 5);
  p.ops[0].outputs = {{0, 0}};
  p.ops[1].loop = LoopMark::Begin;
  p.ops[2].inputs = {{0, 0}};
  p.ops[2].outputs = {{1, 0}};
  p.ops[3].loop = LoopMark::End;
  p.ops[3].node = &end_node;
  p.ops[3].inputs = {{1, 0}};
  p.ops[3].outputs = {{2, 0}, {3, 0}};
  p.ops[4].inputs = {{3, 0}};
  compute_buffer_liveness(p);
  EXPECT_EQ(p.buffers[0].last, 4) << "read by every iteration: live through the End";
  EXPECT_EQ(p.buffers[1].first, 2) << "computed inside the region: not stretched";
  EXPECT_EQ(p.buffers[1].last, 4);
  EXPECT_EQ(p.buffers[2].first, 3) << "a carried output is written once, at the End";
  EXPECT_EQ(p.buffers[3].first, 1) << "a scan output gets a row every iteration: live from the Begin";
  EXPECT_EQ(p.buffers[3].last, 5);
}

TEST(BufferLiveness, AnUnmatchedLoopEndIsAnInternalError) {
  BufferizedProgram p = program(1, 1);
  p.ops[0].loop = LoopMark::End;
  EXPECT_THROW(compute_buffer_liveness(p), std::logic_error);
}

TEST(BufferLiveness, OnlyWhenKeepsTheSidesEveryTouchingOpRunsUnder) {
  // b0 the conditions' buffer (both groups); b1 touched under (0, then) + (1, else)
  // and under (0, then) alone; b2 under (0, then) and (0, else); b3 (scratch) by one
  // op under (0, then) + (1, else).
  BufferizedProgram p = program(4, 3);
  p.buffers[3].kind = BufferKind::Scratch;
  const OpGuard then0{{0, 0}, true, 0}, else0{{0, 0}, false, 0}, else1{{0, 0}, false, 1};
  p.ops[0].outputs = {{1, 0}, {2, 0}};
  p.ops[0].scratch = {{3, 0}};
  p.ops[0].guards = {then0, else1};
  p.ops[1].inputs = {{1, 0}};
  p.ops[1].guards = {then0};
  p.ops[2].inputs = {{2, 0}};
  p.ops[2].guards = {else0};
  compute_buffer_liveness(p);
  using Sides = std::vector<std::pair<int, bool>>;
  EXPECT_EQ(p.buffers[1].only_when, (Sides{{0, true}})) << "the sides common to every op touching it";
  EXPECT_EQ(p.buffers[2].only_when, Sides{}) << "both sides of one condition: no exclusivity";
  EXPECT_EQ(p.buffers[3].only_when, (Sides{{0, true}, {1, false}}));
  EXPECT_EQ(p.buffers[0].only_when, Sides{}) << "the condition is read under both sides";
  EXPECT_EQ(p.buffers[0].first, 0);
  EXPECT_EQ(p.buffers[0].last, 3);
}

}  // namespace
}  // namespace kiln::bufferize_internal
