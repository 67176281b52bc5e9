#include "driver/flash_budget.h"

#include <algorithm>

#include "driver/weight_form_cost.h"
#include "util/error.h"
#include "util/progress.h"
#include "util/quoted.h"

namespace kiln {

namespace {

// The int8 layers whose lowerings have a compact weight form
// (LoweringTarget::compact_weights).
bool has_weight_forms(const Node& n) {
  return n.op_type == "KilnQConv2D" || n.op_type == "KilnQDepthwiseConv2D" || n.op_type == "KilnQFullyConnected";
}

int64_t bytes_saved(const WeightFormOption& o) { return int64_t(o.fast_bytes) - int64_t(o.compact_bytes); }
int64_t instructions_lost(const WeightFormOption& o) { return o.compact_instructions - o.fast_instructions; }

// The options that save bytes, cheapest first (instructions lost per byte saved,
// compared by cross-multiplication: both sides stay far below 2^63).
std::vector<size_t> compaction_order(const std::vector<WeightFormOption>& options) {
  std::vector<size_t> order;
  for (size_t i = 0; i < options.size(); ++i)
    if (bytes_saved(options[i]) > 0) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const WeightFormOption &x = options[a], &y = options[b];
    const __int128 lhs = __int128(instructions_lost(x)) * bytes_saved(y);
    const __int128 rhs = __int128(instructions_lost(y)) * bytes_saved(x);
    if (lhs != rhs) return lhs < rhs;
    return bytes_saved(x) > bytes_saved(y);
  });
  return order;
}

std::string signed_count(int64_t v) { return (v >= 0 ? "+" : "") + std::to_string(v); }

}  // namespace

WeightFormChoice choose_weight_forms(const std::vector<WeightFormOption>& options, uint64_t total_bytes,
                                     uint64_t capacity) {
  WeightFormChoice choice;
  choice.bytes = total_bytes;
  for (size_t i : compaction_order(options)) {
    if (choice.bytes <= capacity) break;
    choice.compact.push_back(i);
    choice.bytes -= std::min<uint64_t>(choice.bytes, uint64_t(bytes_saved(options[i])));
  }
  choice.fits = choice.bytes <= capacity;
  return choice;
}

uint64_t program_parameter_bytes(const BufferizedProgram& program) {
  uint64_t bytes = 0;
  for (const Buffer& b : program.buffers)
    if (b.kind == BufferKind::Constant) {
      const uint64_t a = std::max<uint64_t>(b.alignment, 1);
      bytes += (b.size_bytes + a - 1) / a * a;
    }
  return bytes;
}

FlashBudget fit_parameter_budget(PipelineState& state, PipelineOptions* options,
                                 const std::vector<planner::Pool>& pools) {
  FlashBudget budget;
  uint64_t capacity = 0;
  for (const planner::Pool& p : pools) {
    if (p.kind != planner::PoolKind::Parameter) continue;
    if (!p.capacity) return budget;  // a pool without a size: no budget, the fastest forms
    capacity += *p.capacity;
    budget.pools += (budget.pools.empty() ? "" : ", ") + in_quotes(p.name);
  }
  if (budget.pools.empty()) return budget;
  budget.capacity = capacity;
  budget.bytes_fast = budget.bytes = program_parameter_bytes(state.program);
  if (budget.bytes <= capacity) return budget;

  progress_stage("choosing weight forms for " + std::to_string(capacity) + " B of parameters");
  LoweringTarget all_compact = options->target;
  for (const auto& node : state.graph->nodes)
    if (has_weight_forms(*node)) all_compact.compact_weights.insert(node.get());
  for (const auto& node : state.graph->nodes) {
    const Node* n = node.get();
    auto fast = state.lowered.calls.find(n);
    if (!has_weight_forms(*n) || fast == state.lowered.calls.end()) continue;
    const KernelCall compact = lower_node(*n, all_compact);
    if (kernel_name(compact) == kernel_name(fast->second)) continue;  // one form only (e.g. MVE's)
    WeightFormOption o;
    o.node = n;
    o.name = n->name;
    o.fast_kernel = kernel_name(fast->second);
    o.compact_kernel = kernel_name(compact);
    o.fast_bytes = call_parameter_bytes(*n, fast->second);
    o.compact_bytes = call_parameter_bytes(*n, compact);
    o.fast_instructions = estimated_instructions(*n, fast->second, options->target);
    o.compact_instructions = estimated_instructions(*n, compact, options->target);
    budget.options.push_back(std::move(o));
  }
  budget.compact.assign(budget.options.size(), false);

  // The estimate picks how many layers go compact; the bytes of the program lowered
  // that way decide (a weight shared by two layers is counted once there): one
  // more layer while they do not fit.
  const std::vector<size_t> order = compaction_order(budget.options);
  size_t count = choose_weight_forms(budget.options, budget.bytes_fast, capacity).compact.size();
  while (!order.empty()) {
    options->target.compact_weights.clear();
    for (size_t i = 0; i < count; ++i) {
      options->target.compact_weights.insert(budget.options[order[i]].node);
      budget.compact[order[i]] = true;
    }
    rerun_lowering_passes(state, *options);
    budget.bytes = program_parameter_bytes(state.program);
    if (budget.bytes <= capacity || count >= order.size()) break;
    ++count;
  }
  if (budget.bytes > capacity)
    throw CompileError("parameter pool " + budget.pools + ": " + std::to_string(capacity) +
                       " B, but the parameters need " + std::to_string(budget.bytes) + " B " +
                       (budget.options.empty() ? std::string("and no int8 layer has a smaller weight form for this CPU")
                                               : "with every int8 layer in its compact weight form (" +
                                                     std::to_string(budget.bytes_fast) + " B in the fastest forms)") +
                       ": the smallest size this model compiles into is " +
                       std::to_string(budget.bytes) + " B (--with-parameter-buffer \"...;size=" +
                       std::to_string(budget.bytes) + "\")");
  return budget;
}

std::string flash_budget_summary(const FlashBudget& budget) {
  if (!budget.capacity) return "";
  std::string s = "weight forms: parameter pool " + budget.pools + " of " + std::to_string(*budget.capacity) +
                  " B: parameters " + std::to_string(budget.bytes_fast) + " B in the fastest forms";
  if (budget.options.empty()) return s + ", which fit\n";
  int64_t lost = 0;
  size_t compact = 0;
  for (size_t i = 0; i < budget.options.size(); ++i)
    if (budget.compact[i]) ++compact, lost += instructions_lost(budget.options[i]);
  s += " -> " + std::to_string(budget.bytes) + " B; " + std::to_string(compact) + " of " +
       std::to_string(budget.options.size()) + " layers compact, " + signed_count(lost) +
       " instructions (estimated)\n";
  for (size_t i = 0; i < budget.options.size(); ++i) {
    const WeightFormOption& o = budget.options[i];
    if (budget.compact[i])
      s += "  " + o.name + ": compact " + o.compact_kernel + ", " + std::to_string(o.compact_bytes) + " B (" +
           signed_count(-bytes_saved(o)) + " B), " + signed_count(instructions_lost(o)) + " instructions\n";
    else
      s += "  " + o.name + ": fast " + o.fast_kernel + ", " + std::to_string(o.fast_bytes) + " B (compact: " +
           signed_count(-bytes_saved(o)) + " B, " + signed_count(instructions_lost(o)) + " instructions)\n";
  }
  return s;
}

nlohmann::json flash_budget_json(const FlashBudget& budget) {
  nlohmann::json j;
  if (!budget.capacity) return j;
  j["capacity"] = *budget.capacity;
  j["bytes_fastest"] = budget.bytes_fast;
  j["bytes"] = budget.bytes;
  nlohmann::json layers = nlohmann::json::array();
  for (size_t i = 0; i < budget.options.size(); ++i) {
    const WeightFormOption& o = budget.options[i];
    const bool c = budget.compact[i];
    layers.push_back({{"node", o.name},
                      {"form", c ? "compact" : "fast"},
                      {"kernel", c ? o.compact_kernel : o.fast_kernel},
                      {"bytes", c ? o.compact_bytes : o.fast_bytes},
                      {"bytes_change", c ? -bytes_saved(o) : 0},
                      {"estimated_instructions_change", c ? instructions_lost(o) : 0},
                      {"fast_bytes", o.fast_bytes},
                      {"compact_bytes", o.compact_bytes},
                      {"fast_instructions_estimated", o.fast_instructions},
                      {"compact_instructions_estimated", o.compact_instructions}});
  }
  j["layers"] = layers;
  return j;
}

}  // namespace kiln
