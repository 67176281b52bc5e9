#include "schedule/overlap_choice.h"

#include <set>
#include <utility>

#include "schedule/graph_schedule.h"

namespace kiln {

namespace {

// (peak, area) of live activation and scratch bytes: lower is better.
std::pair<uint64_t, uint64_t> cost(const BufferizedProgram& p) {
  uint64_t area = 0;
  for (const Buffer& b : p.buffers)
    if ((b.kind == BufferKind::Activation || b.kind == BufferKind::Scratch) && b.last > b.first)
      area += b.size_bytes * uint64_t(b.last - b.first);
  return {live_peak(p), area};
}

}  // namespace

BufferizedProgram bufferize_choosing_overlaps(const Graph& g, const LoweredGraph& lowered, BufferizeOptions options) {
  BufferizedProgram all_on = bufferize(g, lowered, options);
  if (!options.overlap || all_on.overlap_nodes.empty()) return all_on;
  const std::vector<const Node*> candidates = all_on.overlap_nodes;
  const std::set<const Node*> given = options.no_overlap;
  // Local search over which overlaps are off: flip one, or two neighbours in
  // schedule order, at a time; keep a flip that lowers the cost; repeat while a pass
  // over the candidates improves (at most kPasses passes). Started from every
  // overlap on and from every overlap off: a chain of overlaps drifts down through
  // one buffer that only grows, so a single switch from "all on" rarely pays while
  // adding them from "all off" does. Pairs: an expanding 1x1 convolution's shared
  // buffer is born with its input, which only pays when that input also shares its
  // own input's buffer (int8 VWW on Cortex-M4: each alone raises the peak).
  constexpr int kPasses = 3;
  auto search = [&](std::set<const Node*> off, BufferizedProgram start) {
    BufferizedProgram best = std::move(start);
    auto best_cost = cost(best);
    for (int pass = 0; pass < kPasses; ++pass) {
      bool improved = false;
      for (size_t i = 0; i < candidates.size(); ++i) {
        for (size_t width = 1; width <= 2 && i + width <= candidates.size(); ++width) {
          std::set<const Node*> trial_off = off;
          for (size_t k = i; k < i + width; ++k)
            if (!trial_off.erase(candidates[k])) trial_off.insert(candidates[k]);
          options.no_overlap = given;
          options.no_overlap.insert(trial_off.begin(), trial_off.end());
          BufferizedProgram trial = bufferize(g, lowered, options);
          const auto c = cost(trial);
          if (c < best_cost) {
            best = std::move(trial);
            best_cost = c;
            off = std::move(trial_off);
            improved = true;
            break;
          }
        }
      }
      if (!improved) break;
    }
    return std::make_pair(best_cost, std::move(best));
  };
  auto from_on = search({}, all_on);
  std::set<const Node*> all(candidates.begin(), candidates.end());
  options.no_overlap = given;
  options.no_overlap.insert(all.begin(), all.end());
  auto from_off = search(all, bufferize(g, lowered, options));
  return from_off.first < from_on.first ? std::move(from_off.second) : std::move(from_on.second);
}

}  // namespace kiln
