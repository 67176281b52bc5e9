// Flash as a budget: when every parameter pool has a size (--with-parameter-buffer
// "name=flash;size=256K"), the int8 Conv2D / depthwise / fully connected layers
// choose, one by one, between their fast weight form (widened, reordered: what the
// target lowers by default) and their compact one (int8 weights as stored,
// LoweringTarget::compact_weights), so that the parameters fit with the fewest
// instructions: starting from every layer fast, the layers move to the compact
// form by least estimated instructions lost per byte saved
// (driver/weight_form_cost.h) until the parameters fit. Without a size nothing
// changes.
// It runs the lowering passes again (driver/pipeline.h, rerun_lowering_passes),
// as memory_tuning.h does for the workspace; it knows nothing of flags.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "driver/pipeline.h"
#include "planner/planner.h"

namespace kiln {

// One layer's two weight forms.
struct WeightFormOption {
  const Node* node = nullptr;
  std::string name;                       // the node's name
  std::string fast_kernel, compact_kernel;
  uint64_t fast_bytes = 0, compact_bytes = 0;           // parameter-pool bytes of each form
  int64_t fast_instructions = 0, compact_instructions = 0;  // estimated per inference
};

// Which options to make compact so that `total_bytes` (the parameters with every
// layer fast) comes down to `capacity`: the options that save bytes, by fewest
// instructions lost per byte saved (ties: more bytes saved first, then the
// earlier option), as many as needed. `compact` lists them in the order chosen;
// `bytes` is the total after; `fits` false when all of them are not enough (then
// `compact` holds all of them and `bytes` is the least the forms reach).
struct WeightFormChoice {
  std::vector<size_t> compact;
  uint64_t bytes = 0;
  bool fits = true;
};
WeightFormChoice choose_weight_forms(const std::vector<WeightFormOption>& options, uint64_t total_bytes,
                                     uint64_t capacity);

// The parameter pool's bytes of a bufferized program: its constant buffers, each
// rounded up to its alignment (what they take packed one after another).
uint64_t program_parameter_bytes(const BufferizedProgram& program);

struct FlashBudget {
  std::optional<uint64_t> capacity;  // the parameter pools' sizes together; none: no budget
  std::string pools;                 // their names, for messages ("'flash'")
  uint64_t bytes_fast = 0;           // the parameters with the fastest forms
  uint64_t bytes = 0;                // the parameters of the program chosen
  std::vector<WeightFormOption> options;  // every layer with a compact form
  std::vector<bool> compact;              // per option: the compact form was chosen
};

// Fits the parameters of `state` (run_pipeline took it through `bufferize` with
// `options`) into the parameter pools of `pools` when they all have a capacity:
// fills options->target.compact_weights and leaves `state` holding the program of
// that target. Throws CompileError naming the pools, their size and the smallest
// size the model compiles into when even every layer compact does not fit.
FlashBudget fit_parameter_budget(PipelineState& state, PipelineOptions* options,
                                 const std::vector<planner::Pool>& pools);

// The compile summary's lines (empty without a budget): the pool, the parameters
// before and after, and each layer's form, bytes and estimated instruction change.
std::string flash_budget_summary(const FlashBudget& budget);
// The same for the JSON report ("weight_forms"; null without a budget).
nlohmann::json flash_budget_json(const FlashBudget& budget);

}  // namespace kiln
