// Flash as a budget (driver/flash_budget.h): the choice of weight forms against a
// parameter pool's size, on made-up layers (the order by instructions lost per
// byte saved, where it stops, what cannot fit) and on the MLPerf Tiny KWS model
// for a Cortex-M4 (no budget changes nothing; a pool below today's parameters
// fits with compact layers; a pool below the compact forms is refused with the
// smallest size that compiles).
#include <gtest/gtest.h>

#include "../support/expect_contains.h"
#include "driver/flash_budget.h"
#include "driver/memory_tuning.h"
#include "driver/weight_form_cost.h"
#include "tflite/tflite_importer.h"
#include "util/error.h"

namespace kiln {
namespace {

WeightFormOption layer(const char* name, uint64_t fast_bytes, uint64_t compact_bytes, int64_t fast_instr,
                       int64_t compact_instr) {
  WeightFormOption o;
  o.name = name;
  o.fast_bytes = fast_bytes, o.compact_bytes = compact_bytes;
  o.fast_instructions = fast_instr, o.compact_instructions = compact_instr;
  return o;
}

// a: 1 instruction per byte saved, b: 0.1, c: 10; d saves nothing.
std::vector<WeightFormOption> four_layers() {
  return {layer("a", 2000, 1000, 5000, 6000), layer("b", 4000, 2000, 9000, 9200),
          layer("c", 1000, 500, 100, 5100), layer("d", 300, 300, 10, 5)};
}

TEST(FlashBudget, NothingChangesWhenTheFastFormsFit) {
  const WeightFormChoice c = choose_weight_forms(four_layers(), 10000, 10000);
  EXPECT_TRUE(c.fits);
  EXPECT_TRUE(c.compact.empty());
  EXPECT_EQ(c.bytes, 10000u);
}

TEST(FlashBudget, CheapestInstructionsPerByteFirstAndNoMoreThanNeeded) {
  // 10000 B fast; 9000 B: b alone (saves 2000 B for 200 instructions).
  WeightFormChoice c = choose_weight_forms(four_layers(), 10000, 9000);
  ASSERT_EQ(c.compact, std::vector<size_t>({1}));
  EXPECT_EQ(c.bytes, 8000u);
  // 7500 B: b then a (1000 B for 1000), not c (500 B for 5000).
  c = choose_weight_forms(four_layers(), 10000, 7500);
  ASSERT_EQ(c.compact, std::vector<size_t>({1, 0}));
  EXPECT_EQ(c.bytes, 7000u);
  EXPECT_TRUE(c.fits);
}

TEST(FlashBudget, AFasterCompactFormGoesFirst) {
  std::vector<WeightFormOption> layers = four_layers();
  layers.push_back(layer("e", 800, 400, 900, 700));  // saves bytes and instructions
  const WeightFormChoice c = choose_weight_forms(layers, 10000, 9700);
  ASSERT_EQ(c.compact, std::vector<size_t>({4}));
}

TEST(FlashBudget, TooSmallAPoolTakesEveryFormThatSavesAndSaysItDoesNotFit) {
  const WeightFormChoice c = choose_weight_forms(four_layers(), 10000, 6000);
  EXPECT_FALSE(c.fits);
  EXPECT_EQ(c.compact, std::vector<size_t>({1, 0, 2}));  // never d, which saves nothing
  EXPECT_EQ(c.bytes, 6500u);
}

struct Compiled {
  std::unique_ptr<Graph> graph;
  PipelineState state;
  PipelineOptions options;
  FlashBudget budget;
};

std::vector<planner::Pool> parameter_pool(std::optional<uint64_t> capacity) {
  planner::Pool ws, params;
  ws.name = "ws";
  params.name = "flash";
  params.kind = planner::PoolKind::Parameter;
  params.capacity = capacity;
  return {ws, params};
}

std::unique_ptr<Compiled> kws(std::optional<uint64_t> capacity, const std::string& mcpu) {
  auto c = std::make_unique<Compiled>();
  c->graph = import_tflite(std::string(KILN_MLPERF_TINY) + "/kws_ref_model.tflite");
  c->state.graph = c->graph.get();
  c->options.target = initial_lowering_target(mcpu, MemoryPriority::Speed);
  run_pipeline(c->state, c->options);
  c->budget = fit_parameter_budget(c->state, &c->options, parameter_pool(capacity));
  return c;
}

std::unique_ptr<Compiled> kws_m4(std::optional<uint64_t> capacity) { return kws(capacity, "cortex-m4"); }

size_t kernels_named(const PipelineState& s, const std::string& kernel) {
  size_t n = 0;
  for (const auto& [node, call] : s.lowered.calls) n += kernel_name(call) == kernel;
  return n;
}

TEST(FlashBudgetKws, WithoutASizeTheFastestFormsStay) {
  auto c = kws_m4(std::nullopt);
  EXPECT_FALSE(c->budget.capacity);
  EXPECT_TRUE(c->options.target.compact_weights.empty());
  EXPECT_EQ(kernels_named(c->state, "kiln_conv2d_s8_w8q"), 0u);
  EXPECT_EQ(flash_budget_summary(c->budget), "");
}

TEST(FlashBudgetKws, APoolBelowTodaysParametersFitsWithCompactLayers) {
  const uint64_t fast = program_parameter_bytes(kws_m4(std::nullopt)->state.program);
  ASSERT_GT(fast, 50000u);
  const uint64_t capacity = fast - 8000;
  auto c = kws_m4(capacity);
  ASSERT_TRUE(c->budget.capacity);
  EXPECT_EQ(c->budget.bytes_fast, fast);
  EXPECT_LE(c->budget.bytes, capacity);
  EXPECT_EQ(c->budget.bytes, program_parameter_bytes(c->state.program));
  // Some layers compact, not all: the pool is only 8,000 B short.
  size_t compact = 0;
  for (bool b : c->budget.compact) compact += b;
  EXPECT_GT(compact, 0u);
  EXPECT_LT(compact, c->budget.options.size());
  EXPECT_EQ(c->options.target.compact_weights.size(), compact);
  EXPECT_EQ(kernels_named(c->state, "kiln_conv2d_s8_w8q") + kernels_named(c->state, "kiln_fully_connected_s8_w8q"),
            compact);
  const std::string summary = flash_budget_summary(c->budget);
  EXPECT_CONTAINS(summary, "parameter pool 'flash' of " + std::to_string(capacity) + " B");
  EXPECT_CONTAINS(summary, ": compact kiln_conv2d_s8_w8q, ");
  EXPECT_CONTAINS(summary, ": fast kiln_");
}

TEST(FlashBudgetKws, APoolBelowTheCompactFormsIsRefusedWithTheSmallestSize) {
  std::string message;
  try {
    kws_m4(20000);
  } catch (const CompileError& e) {
    message = e.what();
  }
  EXPECT_CONTAINS(message, "parameter pool 'flash': 20000 B, but the parameters need ");
  EXPECT_CONTAINS(message, "the smallest size this model compiles into is ");
  // That size compiles, every layer with a compact form compact.
  const size_t at = message.find("compiles into is ") + 17;
  const uint64_t smallest = std::stoull(message.substr(at));
  auto c = kws_m4(smallest);
  EXPECT_EQ(c->budget.bytes, smallest);
  for (bool b : c->budget.compact) EXPECT_TRUE(b);
}

// On a Cortex-M55 the int8-weight form is already the fastest: nothing to choose,
// and a pool below the parameters says so.
TEST(FlashBudgetKws, WithoutACompactFormThePoolIsRefusedAndSaysWhy) {
  std::string message;
  try {
    kws(20000, "cortex-m55");
  } catch (const CompileError& e) {
    message = e.what();
  }
  EXPECT_CONTAINS(message, "and no int8 layer has a smaller weight form for this CPU");
}

}  // namespace
}  // namespace kiln
