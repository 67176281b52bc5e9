// In place: an output that takes over the buffer of an input its op is the last
// user of (KernelCall::in_place_inputs), one placed partly across such an input's
// bytes (KernelCall::overlaps, bufferize/overlap.h; the buffer may grow), and a
// loop's next value computed straight into its carried buffer.
#include <algorithm>

#include "bufferize/internal/bufferizer.h"
#include "bufferize/overlap.h"
#include "ir/loop_region.h"

namespace kiln::bufferize_internal {

// Whether the bytes at `r`, an input of `op` at step `now`, are free once the op
// has read them: every value held by the buffer (views, Concat slices) is dead
// after this op, and any other input in the same buffer is exactly this one (a
// partly overlapping input would be read after the output overwrote it).
bool Bufferizer::dies_at(BufferRef r, int64_t now, const ScheduledOp& op) {
  bool dead = true;
  for (const Value* h : holders_[r.buffer]) dead = dead && last_use_.at(h) <= now;
  for (size_t j = 0; j < op.inputs.size() && dead; ++j)
    if (op.inputs[j].buffer == r.buffer && op.inputs[j].offset != r.offset) dead = false;
  return dead;
}

// An input of `n` whose buffer output 0 can take over (see KernelCall::
// in_place_inputs), or an absent ref.
BufferRef Bufferizer::in_place_source(const Node& n, const KernelCall& call, const ScheduledOp& op, const Value* out) {
  if (!opt_.in_place || out->is_graph_output) return {};
  const int64_t now = step_of_.at(&n);
  for (int i : call.in_place_inputs) {
    const Value* v = n.input(size_t(i));
    if (!v || v->is_constant() || v->dtype != out->dtype || v->size_bytes() != out->size_bytes()) continue;
    if (v->size_bytes() == 0) continue;
    const BufferRef r = op.inputs[size_t(i)];
    if (r.buffer < 0 || prog_.buffers[size_t(r.buffer)].kind != BufferKind::Activation) continue;
    if (feeds_output_.count(out) && (r.offset != 0 || prog_.buffers[size_t(r.buffer)].size_bytes != out->size_bytes()))
      continue;  // would turn the caller's buffer into a copy
    if (dies_at(r, now, op)) return r;
  }
  return {};
}

// Partial reuse (bufferize/overlap.h): output 0 placed across the bytes of an
// input this op is the last user of, at an offset its kernel allows; the buffer
// may grow (everything in it moving up) when the output does not fit inside.
// Switches `call` to the rule's parameters and scratch. Absent ref: not possible.
BufferRef Bufferizer::overlap_source(const Node& n, KernelCall& call, ScheduledOp& op, const Value* out) {
  if (!opt_.overlap || out->is_graph_output || feeds_output_.count(out) || out->size_bytes() == 0) return {};
  if (opt_.no_overlap.count(&n)) return {};
  const int64_t now = step_of_.at(&n);
  for (const auto& rule : call.overlaps) {
    const Value* v = n.input(size_t(rule.input));
    if (!v || v->is_constant() || size_t(rule.input) >= op.inputs.size()) continue;
    const BufferRef r = op.inputs[size_t(rule.input)];
    if (r.buffer < 0 || prog_.buffers[size_t(r.buffer)].kind != BufferKind::Activation) continue;
    if (!dies_at(r, now, op)) continue;
    Buffer& b = prog_.buffers[size_t(r.buffer)];
    const OverlapChoice c = choose_overlap(b.size_bytes, r.offset, out->size_bytes(), rule.granule, rule.min_m,
                                           rule.max_m, b.alignment, /*may_grow=*/true);
    if (!c.ok) continue;
    if (c.shift > 0) shift_buffer(r.buffer, c.shift, op);
    const uint64_t old_size = b.size_bytes;
    b.size_bytes = c.new_size;
    const int64_t delta = int64_t(c.out_offset) - int64_t(r.offset + c.shift);
    prog_.overlaps.push_back(n.describe() + ": output '" + out->name + "' at " + std::to_string(delta) +
                             " bytes from input '" + v->name + "' (" + std::to_string(v->size_bytes()) + " + " +
                             std::to_string(out->size_bytes()) + " B in one buffer of " + std::to_string(c.new_size) +
                             " B" + (c.new_size > old_size ? ", grown from " + std::to_string(old_size) : "") + ")");
    prog_.overlap_nodes.push_back(&n);
    if (!rule.params_init.empty()) call.params_init = rule.params_init;
    if (!rule.call.empty()) call.call = rule.call;
    call.scratch = rule.scratch;
    return {r.buffer, c.out_offset};
  }
  return {};
}

// Every value in buffer `b` (and every op's reference to it) moves up by `shift` bytes.
void Bufferizer::shift_buffer(int b, uint64_t shift, ScheduledOp& current) {
  for (auto& [v, r] : where_)
    if (r.buffer == b) r.offset += shift;
  auto fix = [&](std::vector<BufferRef>& refs) {
    for (auto& r : refs)
      if (r.buffer == b) r.offset += shift;
  };
  for (auto& op : prog_.ops) {
    fix(op.inputs), fix(op.outputs), fix(op.scratch);
    for (auto& g : op.guards)
      if (g.cond.buffer == b) g.cond.offset += shift;
  }
  fix(current.inputs);
}

// A loop's next value computed straight into its carried buffer (no End copy):
// `v` is read only by the End, as next_k, `n` runs in the End's own region (once
// per iteration) and every other read of that buffer (state_k and its views) is
// by an earlier op of the iteration, none by the End except state_k itself.
// Absent ref: not possible.
BufferRef Bufferizer::carried_state_slot(const Node& n, const Value* v) {
  if (!opt_.in_place || v->is_graph_output || v->users.size() != 1 || !is_loop_end(*v->users[0])) return {};
  const Node* end = v->users[0];
  const size_t carried = size_t(end->attr_int("carried", 0));
  const auto at = std::find(end->inputs.begin(), end->inputs.end(), v);
  const size_t p = size_t(at - end->inputs.begin());
  if (p < 3 + carried || p >= 3 + 2 * carried || std::count(end->inputs.begin(), end->inputs.end(), v) != 1) return {};
  const size_t k = p - 3 - carried;
  const Value* state = end->input(2 + k);
  auto begin = loop_begin_of_end_.find(end);
  if (!state || begin == loop_begin_of_end_.end() || region_of_.at(&n) != step_of_.at(begin->second)) return {};
  auto w = where_.find(state);
  if (w == where_.end() || w->second.buffer < 0 || w->second.offset != 0) return {};
  const Buffer& b = prog_.buffers[size_t(w->second.buffer)];
  if (b.kind != BufferKind::Activation || b.size_bytes != v->size_bytes() || v->size_bytes() == 0) return {};
  const int64_t now = step_of_.at(&n);
  for (const Value* h : holders_[w->second.buffer])
    for (const Node* u : h->users) {
      if (u == end) {
        for (size_t j = 0; j < end->inputs.size(); ++j)
          if (end->inputs[j] == h && !(h == state && j == 2 + k)) return {};
        continue;
      }
      auto su = step_of_.find(u);
      if (su == step_of_.end() || su->second >= now) return {};
    }
  return w->second;
}

}  // namespace kiln::bufferize_internal
