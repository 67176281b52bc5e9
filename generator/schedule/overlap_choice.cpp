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
  // Local search over which overlaps are off: flip one at a time, keep a flip that
  // lowers the cost, repeat while a pass over the candidates improves (at most
  // kPasses passes). Started from every overlap on and from every overlap off:
  // a chain of overlaps drifts down through one buffer that only grows, so a
  // single switch from "all on" rarely pays while adding them one by one does.
  constexpr int kPasses = 3;
  auto search = [&](std::set<const Node*> off, BufferizedProgram start) {
    BufferizedProgram best = std::move(start);
    auto best_cost = cost(best);
    for (int pass = 0; pass < kPasses; ++pass) {
      bool improved = false;
      for (const Node* n : candidates) {
        const bool was_off = off.count(n) > 0;
        if (was_off) off.erase(n); else off.insert(n);
        options.no_overlap = given;
        options.no_overlap.insert(off.begin(), off.end());
        BufferizedProgram trial = bufferize(g, lowered, options);
        const auto c = cost(trial);
        if (c < best_cost) {
          best = std::move(trial);
          best_cost = c;
          improved = true;
        } else if (was_off) {
          off.insert(n);
        } else {
          off.erase(n);
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
