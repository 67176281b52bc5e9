#include "ir/loop_region.h"

#include <stdexcept>
#include <vector>

namespace kiln {

bool is_loop_begin(const Node& n) { return n.domain.empty() && n.op_type == kLoopBeginOp; }
bool is_loop_end(const Node& n) { return n.domain.empty() && n.op_type == kLoopEndOp; }

std::map<const Node*, int64_t> loop_regions(const Graph& g) {
  std::map<const Node*, int64_t> r;
  std::vector<std::pair<int64_t, const Node*>> open;  // (index, Begin)
  int64_t i = 0;
  for (const auto& n : g.nodes) {
    if (is_loop_end(*n)) {
      if (open.empty() || n->input(0) != open.back().second->outputs.at(0))
        throw std::logic_error(n->describe() + " does not close the innermost open loop region");
      open.pop_back();
    }
    r[n.get()] = open.empty() ? -1 : open.back().first;
    if (is_loop_begin(*n)) open.push_back({i, n.get()});
    ++i;
  }
  if (!open.empty()) throw std::logic_error(open.back().second->describe() + " has no KilnLoopEnd");
  return r;
}

}  // namespace kiln
