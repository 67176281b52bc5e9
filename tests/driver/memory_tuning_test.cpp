// --memory-priority (driver/memory_tuning.h) on two 3x3 convolutions whose im2col
// tiles set the workspace peak: speed row tiles, lean tiles kept under auto, the
// fallback to RAM tiles when the plan does not fit, and the program left in the
// state always the one of the target returned.
#include <gtest/gtest.h>

#include "../onnx/model_builder.h"
#include "../support/expect_contains.h"
#include "driver/memory_tuning.h"
#include "onnx/onnx_importer.h"
#include "schedule/graph_schedule.h"
#include "util/error.h"

namespace kiln {
namespace {

using testing::ModelBuilder;
using testing::TempDir;

// x[1,16,8,32] -> Conv 3x3 pad 1 -> a -> Conv 3x3 pad 1 -> y. Each convolution's
// im2col column is 16 x 3 x 3 floats (576 B): a row of 32 columns is 18,432 B
// (speed: one row), a lean tile 8 columns (a quarter row, 4,608 B), a RAM tile 4
// columns (2,304 B). The caller holds x and y; `a` (16,384 B) and one tile are
// live at each convolution, so the tiles set the peak.
std::unique_ptr<Graph> two_convs(const TempDir& dir) {
  ModelBuilder m;
  m.input("x", {int64_t(1), int64_t(16), int64_t(8), int64_t(32)})
      .output("y", {int64_t(1), int64_t(16), int64_t(8), int64_t(32)});
  std::vector<float> w(16 * 16 * 9);
  for (size_t i = 0; i < w.size(); ++i) w[i] = 0.01f * float(int(i % 5) - 2);
  m.initializer(ModelBuilder::float_raw("w", {16, 16, 3, 3}, w));
  for (auto [in, out, name] : {std::tuple{"x", "a", "conv_a"}, std::tuple{"a", "y", "conv_b"}}) {
    auto* conv = m.node("Conv", {in, "w"}, {out}, name);
    ModelBuilder::attr_ints(conv, "pads", {1, 1, 1, 1});
    ModelBuilder::attr_ints(conv, "kernel_shape", {3, 3});
  }
  return import_onnx(m.write(dir / "two_convs.onnx"));
}

MemoryPlanOptions pools(std::optional<uint64_t> workspace_capacity = std::nullopt) {
  MemoryPlanOptions mo;
  planner::Pool ws, params;
  ws.name = "ws";
  ws.capacity = workspace_capacity;
  params.name = "params";
  params.kind = planner::PoolKind::Parameter;
  mo.pools = {ws, params};
  return mo;
}

struct Tuned {
  TempDir dir{"memory_tuning"};
  std::unique_ptr<Graph> graph;
  PipelineState state;
  TunedMemory memory;
};

std::unique_ptr<Tuned> tune(MemoryPriority priority, const MemoryPlanOptions& mo) {
  auto t = std::make_unique<Tuned>();
  t->graph = two_convs(t->dir);
  t->state.graph = t->graph.get();
  PipelineOptions po;
  po.target = initial_lowering_target("cortex-m4", priority);
  run_pipeline(t->state, po);
  t->memory = plan_memory_tuned(t->state, po, priority, mo);
  return t;
}

std::vector<uint64_t> scratch_sizes(const BufferizedProgram& p) {
  std::vector<uint64_t> s;
  for (const Buffer& b : p.buffers)
    if (b.kind == BufferKind::Scratch) s.push_back(b.size_bytes);
  return s;
}

// The state holds what the pipeline makes for the target returned, run afresh.
void expect_program_of_target(const Tuned& t) {
  TempDir dir("memory_tuning_fresh");
  std::unique_ptr<Graph> g = two_convs(dir);
  PipelineState fresh;
  fresh.graph = g.get();
  PipelineOptions po;
  po.target = t.memory.target;
  // The lean set names the nodes of the tuned graph: the same convolutions by name.
  po.target.lean_tiles.clear();
  for (const Node* n : t.memory.target.lean_tiles)
    for (const auto& m : g->nodes)
      if (m->name == n->name) po.target.lean_tiles.insert(m.get());
  run_pipeline(fresh, po);
  EXPECT_EQ(scratch_sizes(t.state.program), scratch_sizes(fresh.program));
  EXPECT_EQ(live_peak(t.state.program), live_peak(fresh.program));
  EXPECT_EQ(t.state.program.ops.size(), fresh.program.ops.size());
}

TEST(MemoryTuning, ParsesThePriority) {
  EXPECT_EQ(parse_memory_priority("auto"), MemoryPriority::Auto);
  EXPECT_EQ(parse_memory_priority("speed"), MemoryPriority::Speed);
  EXPECT_EQ(parse_memory_priority("ram"), MemoryPriority::Ram);
  try {
    parse_memory_priority("fast");
    ADD_FAILURE() << "no error";
  } catch (const CompileError& e) {
    EXPECT_STREQ(e.what(), "--memory-priority 'fast' is not one of auto, speed, ram");
  }
}

TEST(MemoryTuning, TheInitialTargetHasTheCpusFeaturesAndRamTilesOnlyForRam) {
  const LoweringTarget m55 = initial_lowering_target("cortex-m55", MemoryPriority::Ram);
  EXPECT_TRUE(m55.mve);
  EXPECT_TRUE(m55.ram_priority);
  const LoweringTarget m4 = initial_lowering_target("cortex-m4", MemoryPriority::Auto);
  EXPECT_TRUE(m4.dsp);
  EXPECT_FALSE(m4.ram_priority);
  EXPECT_TRUE(m4.lean_tiles.empty());
}

TEST(MemoryTuning, SpeedAndRamPlanTheProgramAsItIs) {
  auto speed = tune(MemoryPriority::Speed, pools());
  EXPECT_EQ(speed->memory.note, "speed, largest scratch 18432 B");
  EXPECT_TRUE(speed->memory.target.lean_tiles.empty());
  auto ram = tune(MemoryPriority::Ram, pools());
  EXPECT_EQ(ram->memory.note, "ram (--memory-priority ram), largest scratch 2304 B");
  EXPECT_TRUE(ram->memory.target.ram_priority);
  expect_program_of_target(*ram);
}

TEST(MemoryTuning, AutoGivesLeanTilesToTheConvolutionsAtThePeak) {
  auto speed = tune(MemoryPriority::Speed, pools());
  auto t = tune(MemoryPriority::Auto, pools());
  const uint64_t speed_peak = live_peak(speed->state.program);
  const uint64_t lean_peak = live_peak(t->state.program);
  EXPECT_EQ(speed_peak - lean_peak, 18432u - 4608u);
  EXPECT_EQ(t->memory.note, "speed, lean im2col tiles in 2 convolution(s) at the peak (live peak " +
                                std::to_string(speed_peak) + " -> " + std::to_string(lean_peak) +
                                " B), largest scratch 4608 B");
  EXPECT_EQ(t->memory.target.lean_tiles.size(), 2u);
  EXPECT_FALSE(t->memory.target.ram_priority);
  expect_program_of_target(*t);
}

TEST(MemoryTuning, AutoFallsBackToRamTilesWhenThePlanDoesNotFit) {
  // A workspace exactly as large as the plan with RAM tiles needs: the lean
  // tiles' plan does not fit it.
  auto ram = tune(MemoryPriority::Ram, pools());
  const uint64_t ram_bytes = ram->memory.plan.plan.pools.at(0).size_bytes;
  auto t = tune(MemoryPriority::Auto, pools(ram_bytes));
  EXPECT_CONTAINS(t->memory.note, "ram (the plan with speed tiles did not fit: ");
  EXPECT_CONTAINS(t->memory.note, "), largest scratch 2304 B");
  EXPECT_TRUE(t->memory.target.ram_priority);
  EXPECT_EQ(t->memory.plan.plan.pools.at(0).size_bytes, ram_bytes);
  expect_program_of_target(*t);
  // Speed does not fall back: the plan that does not fit is an error.
  EXPECT_THROW(tune(MemoryPriority::Speed, pools(ram_bytes)), CompileError);
}

}  // namespace
}  // namespace kiln
