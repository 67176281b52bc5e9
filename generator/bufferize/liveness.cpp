// Liveness (internal/liveness.h): values' last uses before the program is built,
// buffers' live intervals and run-time If sides after.
#include <algorithm>
#include <climits>
#include <set>
#include <stdexcept>
#include <utility>
#include <vector>

#include "bufferize/internal/liveness.h"
#include "ir/loop_region.h"

namespace kiln::bufferize_internal {

namespace {

// The step that computes `v` (-1: a graph input or constant).
int64_t def_step(const std::map<const Node*, int64_t>& step_of, const Value* v) {
  if (!v->producer) return -1;
  auto it = step_of.find(v->producer);
  return it == step_of.end() ? -1 : it->second;
}

// Calls f(buffer id) for every buffer op `op` refers to, a guard's condition included.
template <typename F>
void for_each_buffer(const ScheduledOp& op, F f) {
  for (const auto* refs : {&op.inputs, &op.outputs, &op.scratch, &op.constants})
    for (const auto& r : *refs) f(r.buffer);
  for (const auto& gd : op.guards) f(gd.cond.buffer);
}

// [first, last) from the steps that touch each buffer (a guard's condition is read
// when its op is reached).
void op_intervals(BufferizedProgram& prog) {
  const int64_t steps = int64_t(prog.ops.size());
  for (auto& b : prog.buffers) {
    b.first = steps;
    b.last = 0;
  }
  for (int64_t i = 0; i < steps; ++i) {
    const auto& op = prog.ops[size_t(i)];
    for (const auto* refs : {&op.inputs, &op.outputs, &op.scratch, &op.constants})
      for (const auto& r : *refs) {
        if (r.buffer < 0) continue;
        auto& b = prog.buffers[size_t(r.buffer)];
        b.first = std::min(b.first, i);
        b.last = std::max(b.last, i + 1);
      }
    for (const auto& gd : op.guards) {
      auto& b = prog.buffers[size_t(gd.cond.buffer)];
      b.first = std::min(b.first, i);
      b.last = std::max(b.last, i + 1);
    }
  }
}

// Loop regions, innermost first: a scan output (an End output written every
// iteration) lives from the region's start; a buffer written before the region
// and touched inside it lives until the region's End.
void extend_over_loop_regions(BufferizedProgram& prog) {
  const int64_t steps = int64_t(prog.ops.size());
  std::vector<std::pair<int64_t, int64_t>> regions;  // (Begin step, End step)
  std::vector<int64_t> open;
  for (int64_t i = 0; i < steps; ++i) {
    const auto& op = prog.ops[size_t(i)];
    if (op.loop == LoopMark::Begin) open.push_back(i);
    if (op.loop == LoopMark::End) {
      if (open.empty()) throw std::logic_error(op.label + " closes no loop region");
      regions.push_back({open.back(), i});
      open.pop_back();
    }
  }
  for (const auto& region : regions) {
    const int64_t bi = region.first, ei = region.second;  // (lambdas cannot capture bindings in Clang 14)
    const auto& end = prog.ops[size_t(ei)];
    const size_t carried = size_t(end.node->attr_int("carried", 0));
    for (size_t k = carried; k < end.outputs.size(); ++k)
      if (end.outputs[k].buffer >= 0) {
        auto& b = prog.buffers[size_t(end.outputs[k].buffer)];
        b.first = std::min(b.first, bi);
      }
    for (int64_t i = bi + 1; i <= ei; ++i)
      for_each_buffer(prog.ops[size_t(i)], [&](int id) {
        if (id < 0) return;
        auto& b = prog.buffers[size_t(id)];
        if (b.first < bi) b.last = std::max(b.last, ei + 1);
      });
  }
}

// The guards every op touching a buffer runs under: its run-time If side(s).
void record_branch_sides(BufferizedProgram& prog) {
  std::vector<char> seen(prog.buffers.size(), 0);
  std::vector<std::vector<std::pair<int, bool>>> sides(prog.buffers.size());
  for (const auto& op : prog.ops) {
    std::vector<std::pair<int, bool>> here;
    for (const auto& gd : op.guards) here.push_back({gd.group, gd.when});
    for_each_buffer(op, [&](int b) {
      if (b < 0) return;
      auto& s = sides[size_t(b)];
      if (!seen[size_t(b)]) {
        seen[size_t(b)] = 1;
        s = here;
        return;
      }
      s.erase(std::remove_if(s.begin(), s.end(),
                             [&](const auto& t) { return std::find(here.begin(), here.end(), t) == here.end(); }),
              s.end());
    });
  }
  for (size_t i = 0; i < prog.buffers.size(); ++i) {
    auto& b = prog.buffers[i];
    if (b.kind == BufferKind::Activation || b.kind == BufferKind::Scratch) b.only_when = sides[i];
  }
}

}  // namespace

std::map<const Value*, int64_t> value_last_uses(const Graph& g, const std::map<const Node*, int64_t>& step_of) {
  std::map<const Value*, int64_t> last_use;
  for (const auto& vp : g.values()) {
    const Value* v = vp.get();
    int64_t last = -1;
    for (const Node* u : v->users) {
      auto it = step_of.find(u);
      if (it != step_of.end()) last = std::max(last, it->second);
    }
    if (v->is_graph_output) last = LLONG_MAX;
    last_use[v] = last;
  }
  // Loop regions: a value computed before a region and read inside it is read
  // again by every iteration, so it lives until the region's End.
  std::vector<std::pair<int64_t, std::set<const Value*>>> open;  // Begin step, outer values read
  for (const auto& n : g.nodes) {
    const int64_t now = step_of.at(n.get());
    if (is_loop_end(*n) && !open.empty()) {
      for (const Value* v : open.back().second) last_use[v] = std::max(last_use[v], now);
      auto done = std::move(open.back().second);
      open.pop_back();
      if (!open.empty())  // read inside the enclosing region too
        for (const Value* v : done)
          if (def_step(step_of, v) < open.back().first) open.back().second.insert(v);
    }
    if (!open.empty())
      for (const Value* v : n->inputs)
        if (v && !v->is_constant() && def_step(step_of, v) < open.back().first) open.back().second.insert(v);
    if (is_loop_begin(*n)) open.push_back({now, {}});
  }
  return last_use;
}

void compute_buffer_liveness(BufferizedProgram& prog) {
  const int64_t steps = int64_t(prog.ops.size());
  op_intervals(prog);
  extend_over_loop_regions(prog);
  record_branch_sides(prog);
  for (auto& b : prog.buffers) {
    // Caller-owned, constant and state memory exists for the whole run.
    if (b.kind == BufferKind::Input || b.kind == BufferKind::Output || b.kind == BufferKind::Constant ||
        b.kind == BufferKind::State) {
      b.first = 0;
      b.last = std::max<int64_t>(steps, 1);
    }
    if (b.first > b.last) b.first = b.last = 0;  // never referenced
  }
}

}  // namespace kiln::bufferize_internal
