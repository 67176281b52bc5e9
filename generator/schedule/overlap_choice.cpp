#include "schedule/overlap_choice.h"

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
  BufferizedProgram best = bufferize(g, lowered, options);
  if (!options.overlap || best.overlap_nodes.empty()) return best;
  auto best_cost = cost(best);
  const std::vector<const Node*> candidates = best.overlap_nodes;
  for (const Node* n : candidates) {
    options.no_overlap.insert(n);
    BufferizedProgram trial = bufferize(g, lowered, options);
    const auto c = cost(trial);
    if (c < best_cost) {
      best = std::move(trial);
      best_cost = c;
    } else {
      options.no_overlap.erase(n);
    }
  }
  return best;
}

}  // namespace kiln
