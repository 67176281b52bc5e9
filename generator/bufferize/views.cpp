// Views and aliasing (internal/views.h): the placement plan made before the first
// op, view ops bound to their source's bytes, and placed values' addresses.
#include <set>

#include "bufferize/internal/bufferizer.h"
#include "bufferize/internal/views.h"
#include "util/error.h"

namespace kiln::bufferize_internal {

namespace {

using Calls = std::map<const Node*, KernelCall>;

const KernelCall& call_of(const Calls& calls, const Node* n) {
  static const KernelCall none;
  auto it = calls.find(n);
  return it == calls.end() ? none : it->second;
}

// Concat inputs (and inputs an op keeps at a slot, such as an element stored into
// a sequence table) that their producer can compute straight into their slice.
void place_into_slices(const Graph& g, const Calls& calls, Placements& p) {
  for (const auto& n : g.nodes) {
    const KernelCall& c = call_of(calls, n.get());
    if (c.input_offsets.size() != n->inputs.size() || n->outputs.empty()) continue;
    std::set<const Value*> seen;
    for (size_t k = 0; k < n->inputs.size(); ++k) {
      const Value* v = n->inputs[k];
      // Only a value some op computes into a fresh buffer can be placed: not an
      // input or constant, not a caller output, not a view, each value once.
      if (!v || !seen.insert(v).second || v->is_constant() || v->is_graph_input || v->is_graph_output) continue;
      if (!v->producer) continue;
      if (c.placement_keeps_call) {
        // Held by this op only (e.g. an element stored into a sequence table), and
        // aligned for its element type at its slot.
        if (v->users.size() != 1 || dtype_size(v->dtype) == 0 || c.input_offsets[k] % dtype_size(v->dtype) != 0)
          continue;
      } else if (v->dtype != n->outputs[0]->dtype) {
        continue;
      }
      const KernelCall& pc = call_of(calls, v->producer);
      if (pc.alias_input >= 0 || !pc.view_offsets.empty()) continue;
      if (p.into.count(v)) continue;  // already placed into an earlier Concat
      p.into[v] = {n.get(), c.input_offsets[k]};
    }
  }
}

// A run-time If's result: each branch's final value, computed only under its
// side's guard, is written straight into the If's output buffer (both branches
// alias it) and the KilnSelect disappears. Every op writing there must run
// only on its side, or one side would clobber the other's value.
void place_into_if_outputs(const Graph& g, const Calls& calls,
                           const std::map<const Node*, std::vector<BranchGuard>>& guards, Placements& p) {
  for (const auto& n : g.nodes) {
    if (!is_runtime_select(*n) || n->inputs[1] == n->inputs[2]) continue;
    const Value* out = n->outputs[0];
    for (size_t k : {size_t(1), size_t(2)}) {
      const Value* v = n->inputs[k];
      if (!v || v->is_constant() || v->is_graph_input || v->is_graph_output || !v->producer) continue;
      if (v->users.size() != 1 || v->dtype != out->dtype || v->size_bytes() != out->size_bytes()) continue;
      if (!guarded_on(guards, v->producer, n->inputs[0], k == 1) || p.into.count(v)) continue;
      const KernelCall& pc = call_of(calls, v->producer);
      if (pc.alias_input >= 0 || !pc.view_offsets.empty() || !pc.input_offsets.empty()) continue;
      p.into[v] = {n.get(), 0};
      p.select_side[v] = {n->inputs[0], k == 1};
    }
  }
}

// A placed value computed in place from another (Relu after Conv): that one goes
// into the slice too, so the op runs in place there instead of copying into it.
void place_in_place_sources(const Calls& calls, const std::map<const Node*, std::vector<BranchGuard>>& guards,
                            Placements& p) {
  std::vector<const Value*> work;
  for (const auto& [v, where] : p.into) work.push_back(v);
  while (!work.empty()) {
    const Value* v = work.back();
    work.pop_back();
    const Node* prod = v->producer;
    if (!prod || prod->outputs.empty() || prod->outputs[0] != v) continue;
    const KernelCall& pc = call_of(calls, prod);
    if (!pc.input_offsets.empty()) continue;
    for (int i : pc.in_place_inputs) {
      const Value* u = prod->input(size_t(i));
      if (!u || u->users.size() != 1 || u->is_constant() || u->is_graph_input || u->is_graph_output || !u->producer)
        continue;
      if (u->dtype != v->dtype || u->size_bytes() != v->size_bytes() || p.into.count(u)) continue;
      const KernelCall& uc = call_of(calls, u->producer);
      if (uc.alias_input >= 0 || !uc.view_offsets.empty() || !uc.input_offsets.empty()) continue;
      if (auto side = p.select_side.find(v); side != p.select_side.end()) {
        if (!guarded_on(guards, u->producer, side->second.first, side->second.second)) continue;
        p.select_side[u] = side->second;
      }
      p.into[u] = p.into.at(v);
      work.push_back(u);
      break;
    }
  }
}

}  // namespace

Placements plan_placements(const Graph& g, const Calls& calls,
                           const std::map<const Node*, std::vector<BranchGuard>>& guards,
                           const BufferizeOptions& options) {
  Placements p;
  if (!options.alias_views) return p;
  place_into_slices(g, calls, p);
  place_into_if_outputs(g, calls, guards, p);
  if (options.in_place) place_in_place_sources(calls, guards, p);
  return p;
}

// A view op: its output is bound to its input's bytes (KernelCall::alias_input), or
// Slice / Split outputs at offsets into input 0 (view_offsets); with aliasing off,
// an alias view becomes a copy. Returns whether `n` was one (then nothing more runs).
bool Bufferizer::lower_view(const Node& n, const KernelCall& call, ScheduledOp& op) {
  if (call.alias_input >= 0) {
    const Value* src = n.input(size_t(call.alias_input));
    const Value* dst = n.outputs.at(0);
    if (!src) throw CompileError(n.describe() + ": view of an omitted input");
    BufferRef src_ref = op.inputs[size_t(call.alias_input)];
    if (opt_.alias_views) {
      // A view: the output is the same bytes, so it shares the buffer.
      bind(dst, src_ref);
      return true;
    }
    // Aliasing switched off (for measurements): an explicit copy.
    int b = -1;
    if (dst->is_graph_output) b = claim_output_buffer(dst);
    if (b < 0) b = new_buffer(dst->name, BufferKind::Activation, dst->size_bytes(), n.describe());
    bind(dst, {b, 0});
    push_copy(n, n.describe() + " (copy, aliasing off)", src_ref, {b, 0}, dst);
    return true;
  }
  // Slice / Split of contiguous ranges: views at an offset into input 0.
  if (!call.view_offsets.empty() && opt_.alias_views && call.view_offsets.size() == n.outputs.size() &&
      op.inputs.at(0).buffer >= 0) {
    const BufferRef src = op.inputs[0];
    for (size_t k = 0; k < n.outputs.size(); ++k) bind(n.outputs[k], {src.buffer, src.offset + call.view_offsets[k]});
    return true;
  }
  return false;
}

// Where a placed value lives: its slice of the Concat output, whose buffer is
// created the first time any of its inputs is computed (nested Concats resolve
// to the outermost one).
BufferRef Bufferizer::placed_ref(const Value* v) {
  const auto& [concat, offset] = placements_.into.at(v);
  const Value* out = concat->outputs[0];
  auto it = where_.find(out);
  BufferRef base;
  if (it != where_.end()) {
    base = it->second;
  } else if (placements_.into.count(out)) {
    base = placed_ref(out);
    bind(out, base);
  } else {
    int b = -1;
    if (out->is_graph_output) b = claim_output_buffer(out);
    if (b < 0) b = new_buffer(out->name, BufferKind::Activation, out->size_bytes(), concat->describe());
    base = {b, 0};
    bind(out, base);
  }
  return {base.buffer, base.offset + offset};
}

}  // namespace kiln::bufferize_internal
