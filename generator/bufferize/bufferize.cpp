#include "bufferize/bufferize.h"
#include "bufferize/branch_guards.h"
#include "bufferize/overlap.h"

#include <algorithm>
#include <climits>
#include <map>
#include <set>
#include <stdexcept>

#include "ir/loop_region.h"
#include "util/error.h"
#include "util/quoted.h"

namespace kiln {

const char* buffer_kind_name(BufferKind k) {
  switch (k) {
    case BufferKind::Activation: return "activation";
    case BufferKind::Scratch: return "scratch";
    case BufferKind::Input: return "input";
    case BufferKind::Output: return "output";
    case BufferKind::Constant: return "constant";
  }
  return "?";
}

namespace {

// Builds the program op by op. `where_` maps every value computed so far to the
// buffer (and byte offset) that holds it; views map to their source's buffer.
class Bufferizer {
 public:
  Bufferizer(const Graph& g, const LoweredGraph& lowered, const BufferizeOptions& o)
      : g_(g), opt_(o), calls_(lowered.calls) {}

  BufferizedProgram run() {
    for (size_t k = 0; k < g_.inputs.size(); ++k) {
      const Value* v = g_.inputs[k];
      int b = new_buffer(v->name, BufferKind::Input, v->size_bytes(), "graph input");
      prog_.buffers[size_t(b)].io_index = int(k);
      bind(v, {b, 0});
    }
    analyse();
    for (const auto& n : g_.nodes) lower(*n);
    bind_outputs();
    compute_liveness();
    return std::move(prog_);
  }

 private:
  int new_buffer(const std::string& name, BufferKind kind, uint64_t size, const std::string& origin) {
    Buffer b;
    b.id = int(prog_.buffers.size());
    b.name = name;
    b.kind = kind;
    b.size_bytes = size;
    b.alignment = opt_.activation_alignment;
    b.origin = origin;
    prog_.buffers.push_back(std::move(b));
    return prog_.buffers.back().id;
  }

  // Records that `v` lives at `r` (every value of a buffer is remembered, so a
  // buffer is reused in place only when all of them are dead).
  void bind(const Value* v, BufferRef r) {
    where_[v] = r;
    if (r.buffer >= 0) holders_[r.buffer].push_back(v);
  }

  // Numbers the schedule, finds each value's last use and plans Concat placement:
  // which producers write straight into their slice.
  void analyse() {
    guards_ = branch_guards(g_);
    int64_t i = 0;
    for (const auto& n : g_.nodes) {
      step_of_[n.get()] = i++;
      if (!calls_.count(n.get())) throw std::logic_error(n->describe() + " was not lowered before bufferization");
    }
    for (const auto& vp : g_.values()) {
      const Value* v = vp.get();
      int64_t last = -1;
      for (const Node* u : v->users) {
        auto it = step_of_.find(u);
        if (it != step_of_.end()) last = std::max(last, it->second);
      }
      if (v->is_graph_output) last = LLONG_MAX;
      last_use_[v] = last;
    }
    // Loop regions: a value computed before a region and read inside it is read
    // again by every iteration, so it lives until the region's End.
    {
      std::vector<std::pair<int64_t, std::set<const Value*>>> open;  // Begin step, outer values read
      for (const auto& n : g_.nodes) {
        const int64_t now = step_of_.at(n.get());
        if (is_loop_end(*n) && !open.empty()) {
          for (const Value* v : open.back().second) last_use_[v] = std::max(last_use_[v], now);
          auto done = std::move(open.back().second);
          open.pop_back();
          if (!open.empty())  // read inside the enclosing region too
            for (const Value* v : done)
              if (def_step(v) < open.back().first) open.back().second.insert(v);
        }
        if (!open.empty())
          for (const Value* v : n->inputs)
            if (v && !v->is_constant() && def_step(v) < open.back().first) open.back().second.insert(v);
        if (is_loop_begin(*n)) open.push_back({now, {}});
      }
      region_of_ = loop_regions(g_);
      for (const auto& n : g_.nodes)
        if (is_loop_end(*n)) {
          const Node* begin = n->input(0) ? n->input(0)->producer : nullptr;
          if (!begin || !is_loop_begin(*begin)) throw std::logic_error(n->describe() + " has no KilnLoopBegin");
          loop_begin_of_end_[n.get()] = begin;
          loop_end_of_begin_[begin] = n.get();
        }
    }
    // Values a graph output is a whole-buffer view of: their buffer becomes the
    // caller's (bind_outputs), so in place they may only take a buffer of their size.
    for (const Value* o : g_.outputs)
      for (const Value* v = o; v && v->producer && calls_[v->producer].alias_input >= 0;)
        feeds_output_.insert(v = v->producer->input(size_t(calls_[v->producer].alias_input)));
    if (!opt_.alias_views) return;
    for (const auto& n : g_.nodes) {
      const KernelCall& c = calls_[n.get()];
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
        const KernelCall& pc = calls_[v->producer];
        if (pc.alias_input >= 0 || !pc.view_offsets.empty()) continue;
        if (placement_.count(v)) continue;  // already placed into an earlier Concat
        placement_[v] = {n.get(), c.input_offsets[k]};
      }
    }
    // A run-time If's result: each branch's final value, computed only under its
    // side's guard, is written straight into the If's output buffer (both branches
    // alias it) and the KilnSelect disappears. Every op writing there must run
    // only on its side, or one side would clobber the other's value.
    for (const auto& n : g_.nodes) {
      if (!is_runtime_select(*n) || n->inputs[1] == n->inputs[2]) continue;
      const Value* out = n->outputs[0];
      for (size_t k : {size_t(1), size_t(2)}) {
        const Value* v = n->inputs[k];
        if (!v || v->is_constant() || v->is_graph_input || v->is_graph_output || !v->producer) continue;
        if (v->users.size() != 1 || v->dtype != out->dtype || v->size_bytes() != out->size_bytes()) continue;
        if (!guarded_on(v->producer, n->inputs[0], k == 1) || placement_.count(v)) continue;
        const KernelCall& pc = calls_[v->producer];
        if (pc.alias_input >= 0 || !pc.view_offsets.empty() || !pc.input_offsets.empty()) continue;
        placement_[v] = {n.get(), 0};
        select_side_[v] = {n->inputs[0], k == 1};
      }
    }
    // A placed value computed in place from another (Relu after Conv): that one goes
    // into the slice too, so the op runs in place there instead of copying into it.
    if (!opt_.in_place) return;
    std::vector<const Value*> work;
    for (const auto& [v, where] : placement_) work.push_back(v);
    while (!work.empty()) {
      const Value* v = work.back();
      work.pop_back();
      const Node* p = v->producer;
      if (!p || p->outputs.empty() || p->outputs[0] != v) continue;
      const KernelCall& pc = calls_[p];
      if (!pc.input_offsets.empty()) continue;
      for (int i : pc.in_place_inputs) {
        const Value* u = p->input(size_t(i));
        if (!u || u->users.size() != 1 || u->is_constant() || u->is_graph_input || u->is_graph_output || !u->producer)
          continue;
        if (u->dtype != v->dtype || u->size_bytes() != v->size_bytes() || placement_.count(u)) continue;
        const KernelCall& uc = calls_[u->producer];
        if (uc.alias_input >= 0 || !uc.view_offsets.empty() || !uc.input_offsets.empty()) continue;
        if (auto side = select_side_.find(v); side != select_side_.end()) {
          if (!guarded_on(u->producer, side->second.first, side->second.second)) continue;
          select_side_[u] = side->second;
        }
        placement_[u] = placement_.at(v);
        work.push_back(u);
        break;
      }
    }
  }

  // The step that computes `v` (-1: a graph input or constant).
  int64_t def_step(const Value* v) const {
    if (!v->producer) return -1;
    auto it = step_of_.find(v->producer);
    return it == step_of_.end() ? -1 : it->second;
  }

  // A loop region's End: a carried value passed on from another carried value (or
  // from the iteration number / cond_in) is first copied out of the Begin's
  // buffers, so the End's copies into them can run one after another.
  void lower_loop_end(const Node& n, ScheduledOp& op) {
    const size_t carried = size_t(n.attr_int("carried", 0));
    std::set<int> begin_buffers;
    for (size_t k = 0; k < 2 + carried; ++k)
      if (op.inputs[k].buffer >= 0) begin_buffers.insert(op.inputs[k].buffer);
    for (size_t k = 0; k < carried; ++k) {
      BufferRef& src = op.inputs[3 + carried + k];
      const BufferRef dst = op.inputs[2 + k];
      if (src.buffer < 0 || !begin_buffers.count(src.buffer)) continue;
      if (src.buffer == dst.buffer && src.offset == dst.offset) continue;  // passed on unchanged: no copy at all
      const Value* v = n.inputs[3 + carried + k];
      const int b = new_buffer(v->name + ".next", BufferKind::Activation, v->size_bytes(), n.describe());
      push_copy(n, n.describe() + " (loop-carried value '" + v->name + "' out of the loop state)", src, {b, 0}, v);
      prog_.ops.back().guards = guards_of(n);
      prog_.copies.push_back(n.describe() + ": the next value '" + v->name +
                             "' is copied out of the loop state because it is another loop-carried value");
      src = {b, 0};
    }
  }

  // A loop's next value computed straight into its carried buffer (no End copy):
  // `v` is read only by the End, as next_k, `n` runs in the End's own region (once
  // per iteration) and every other read of that buffer (state_k and its views) is
  // by an earlier op of the iteration, none by the End except state_k itself.
  // Absent ref: not possible.
  BufferRef carried_state_slot(const Node& n, const Value* v) {
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

  // A KilnSelect on a run-time condition: the join of a run-time If.
  static bool is_runtime_select(const Node& n) {
    return n.op_type == "KilnSelect" && n.domain.empty() && n.inputs.size() == 3 && n.outputs.size() == 1 &&
           n.inputs[0] && !n.inputs[0]->is_constant();
  }

  // Whether `n` runs only when `cond` is `when` (bufferize/branch_guards.h).
  bool guarded_on(const Node* n, const Value* cond, bool when) const {
    auto g = guards_.find(n);
    if (g == guards_.end()) return false;
    for (const BranchGuard& bg : g->second)
      if (bg.cond == cond && bg.when == when) return true;
    return false;
  }

  int group_of(const Value* cond) { return cond_group_.emplace(cond, int(cond_group_.size())).first->second; }

  // The guards `n` runs under (empty: always runs).
  std::vector<OpGuard> guards_of(const Node& n) {
    std::vector<OpGuard> out;
    if (auto g = guards_.find(&n); g != guards_.end())
      for (const BranchGuard& bg : g->second) {
        auto w = where_.find(bg.cond);
        if (w != where_.end() && w->second.buffer >= 0) out.push_back({w->second, bg.when, group_of(bg.cond)});
      }
    return out;
  }

  // A run-time If's KilnSelect whose output buffer a branch's producer already
  // wrote into: the other branch's value, unless placed there too, is copied
  // under its side's guard; with both placed nothing runs.
  void lower_placed_select(const Node& n, const ScheduledOp& op) {
    const BufferRef dst = where_.at(n.outputs[0]);
    for (size_t k : {size_t(1), size_t(2)}) {
      const BufferRef src = op.inputs[k];
      if (src.buffer == dst.buffer && src.offset == dst.offset) continue;
      const Value* v = n.inputs[k];
      if (v->size_bytes() == 0) continue;
      push_copy(n, n.describe() + " (" + (k == 1 ? "then" : "else") + " value '" + v->name + "')", src, dst, v);
      ScheduledOp& copy = prog_.ops.back();
      copy.guards = guards_of(n);
      copy.guards.push_back({op.inputs[0], k == 1, group_of(n.inputs[0])});
      prog_.copies.push_back(n.describe() + ": the " + (k == 1 ? "then" : "else") + " value '" + v->name +
                             "' is copied into the If's output because its producer does not run only on that side");
    }
  }

  // Where a placed value lives: its slice of the Concat output, whose buffer is
  // created the first time any of its inputs is computed (nested Concats resolve
  // to the outermost one).
  BufferRef placed_ref(const Value* v) {
    const auto& [concat, offset] = placement_.at(v);
    const Value* out = concat->outputs[0];
    auto it = where_.find(out);
    BufferRef base;
    if (it != where_.end()) {
      base = it->second;
    } else if (placement_.count(out)) {
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

  // An input of `n` whose buffer output 0 can take over (see KernelCall::
  // in_place_inputs), or an absent ref.
  BufferRef in_place_source(const Node& n, const KernelCall& call, const ScheduledOp& op, const Value* out) {
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
      // Every value held by the buffer (views, Concat slices) must be dead after this op.
      bool dead = true;
      for (const Value* h : holders_[r.buffer]) dead = dead && last_use_.at(h) <= now;
      // Another input in the same buffer must be exactly this one: a partly
      // overlapping input would be read after the output overwrote it.
      for (size_t j = 0; j < op.inputs.size() && dead; ++j)
        if (op.inputs[j].buffer == r.buffer && op.inputs[j].offset != r.offset) dead = false;
      if (dead) return r;
    }
    return {};
  }

  // Partial reuse (bufferize/overlap.h): output 0 placed across the bytes of an
  // input this op is the last user of, at an offset its kernel allows; the buffer
  // may grow (everything in it moving up) when the output does not fit inside.
  // Switches `call` to the rule's parameters and scratch. Absent ref: not possible.
  BufferRef overlap_source(const Node& n, KernelCall& call, ScheduledOp& op, const Value* out) {
    if (!opt_.overlap || out->is_graph_output || feeds_output_.count(out) || out->size_bytes() == 0) return {};
    if (opt_.no_overlap.count(&n)) return {};
    const int64_t now = step_of_.at(&n);
    for (const auto& rule : call.overlaps) {
      const Value* v = n.input(size_t(rule.input));
      if (!v || v->is_constant() || size_t(rule.input) >= op.inputs.size()) continue;
      const BufferRef r = op.inputs[size_t(rule.input)];
      if (r.buffer < 0 || prog_.buffers[size_t(r.buffer)].kind != BufferKind::Activation) continue;
      bool dead = true;
      for (const Value* h : holders_[r.buffer]) dead = dead && last_use_.at(h) <= now;
      for (size_t j = 0; j < op.inputs.size() && dead; ++j)
        if (op.inputs[j].buffer == r.buffer && op.inputs[j].offset != r.offset) dead = false;
      if (!dead) continue;
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
  void shift_buffer(int b, uint64_t shift, ScheduledOp& current) {
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

  BufferRef ref_of(const Value* v, const Node& user) {
    if (v == nullptr) return {};
    if (v->is_constant()) {
      auto it = where_.find(v);
      if (it != where_.end()) return it->second;
      int b = new_buffer(v->name, BufferKind::Constant, v->constant->size_bytes(), "constant");
      prog_.buffers[size_t(b)].constant = v->constant;
      bind(v, {b, 0});
      return {b, 0};
    }
    auto it = where_.find(v);
    if (it == where_.end())
      throw CompileError(user.describe() + ": input " + in_quotes(v->name) + " is used before it is computed");
    return it->second;
  }

  // A byte copy scheduled as part of `n` (aliasing off, or a Concat input that
  // could not be placed).
  void push_copy(const Node& n, const std::string& label, BufferRef src, BufferRef dst, const Value* v) {
    ScheduledOp copy;
    copy.node = &n;
    copy.label = label;
    copy.call.call = "kiln_copy_bytes($out0, $in0, " + std::to_string(v->size_bytes()) + "u)";
    copy.inputs = {src};
    copy.input_dtypes = {v->dtype};
    copy.outputs = {dst};
    copy.output_dtypes = {v->dtype};
    prog_.ops.push_back(std::move(copy));
  }

  // Concat whose output buffer exists already (some input was placed): each input
  // not already in its slice is copied there; when all are placed the op vanishes.
  void lower_placed_concat(const Node& n, const KernelCall& call, const ScheduledOp& op) {
    const BufferRef base = where_.at(n.outputs[0]);
    for (size_t k = 0; k < n.inputs.size(); ++k) {
      const BufferRef dst{base.buffer, base.offset + call.input_offsets[k]};
      const BufferRef src = op.inputs[k];
      if (src.buffer == dst.buffer && src.offset == dst.offset) continue;
      const Value* v = n.inputs[k];
      if (v->size_bytes() == 0) continue;
      push_copy(n, n.describe() + " (input '" + v->name + "' into its slice)", src, dst, v);
      std::string why = v->is_graph_input   ? "it is a graph input"
                        : v->is_constant()  ? "it is a constant"
                        : v->is_graph_output ? "it is also a graph output"
                        : placement_.count(v) && placement_.at(v).first != &n
                            ? "it is placed into another Concat"
                            : "it is a view or appears twice";
      prog_.copies.push_back(n.describe() + ": input '" + v->name + "' is copied into its slice because " + why);
    }
  }

  void lower(const Node& n) {
    KernelCall call = calls_.at(&n);
    ScheduledOp op;
    op.node = &n;
    op.label = n.describe();
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      const Value* v = n.inputs[i];
      const bool unread = v && v->is_constant() &&
                          std::find(call.unread_inputs.begin(), call.unread_inputs.end(), int(i)) != call.unread_inputs.end();
      op.inputs.push_back(unread ? BufferRef{} : ref_of(v, n));
      op.input_dtypes.push_back(v ? v->dtype : DType::Undefined);
    }
    for (size_t i = 0; i < call.constants.size(); ++i) {
      const ConstantPtr& c = call.constants[i];
      int b = new_buffer(n.name + ".const" + std::to_string(i), BufferKind::Constant, c->size_bytes(), n.describe());
      prog_.buffers[size_t(b)].constant = c;
      prog_.buffers[size_t(b)].alignment = std::max(opt_.activation_alignment, 8u);  // kernels read int64 fields
      op.constants.push_back({b, 0});
    }

    if (call.alias_input >= 0) {
      const Value* src = n.input(size_t(call.alias_input));
      const Value* dst = n.outputs.at(0);
      if (!src) throw CompileError(n.describe() + ": view of an omitted input");
      BufferRef src_ref = op.inputs[size_t(call.alias_input)];
      if (opt_.alias_views) {
        // A view: the output is the same bytes, so it shares the buffer.
        bind(dst, src_ref);
        return;
      }
      // Aliasing switched off (for measurements): an explicit copy.
      int b = -1;
      if (dst->is_graph_output) b = claim_output_buffer(dst);
      if (b < 0) b = new_buffer(dst->name, BufferKind::Activation, dst->size_bytes(), n.describe());
      bind(dst, {b, 0});
      push_copy(n, n.describe() + " (copy, aliasing off)", src_ref, {b, 0}, dst);
      return;
    }

    // Slice / Split of contiguous ranges: views at an offset into input 0.
    if (!call.view_offsets.empty() && opt_.alias_views && call.view_offsets.size() == n.outputs.size() &&
        op.inputs.at(0).buffer >= 0) {
      const BufferRef src = op.inputs[0];
      for (size_t k = 0; k < n.outputs.size(); ++k) bind(n.outputs[k], {src.buffer, src.offset + call.view_offsets[k]});
      return;
    }

    // A run-time If's join whose output a branch already wrote.
    if (is_runtime_select(n) && where_.count(n.outputs[0])) {
      lower_placed_select(n, op);
      return;
    }

    // Concat by placement: its output buffer was created by a placed producer.
    if (!call.input_offsets.empty() && where_.count(n.outputs[0]) && !call.placement_keeps_call) {
      lower_placed_concat(n, call, op);
      return;
    }

    for (const Value* v : n.outputs) {
      op.output_dtypes.push_back(v->dtype);
      if (v->dtype == DType::Undefined) {  // an omitted optional output
        op.outputs.push_back({});
        continue;
      }
      if (call.placement_keeps_call && where_.count(v)) {  // created by a placed input's producer
        op.outputs.push_back(where_.at(v));
        continue;
      }
      if (placement_.count(v)) {  // written straight into its slice of a Concat
        BufferRef r = placed_ref(v);
        op.outputs.push_back(r);
        bind(v, r);
        continue;
      }
      if (BufferRef r = carried_state_slot(n, v); r.buffer >= 0) {  // the next value written over its state
        op.outputs.push_back(r);
        bind(v, r);
        continue;
      }
      int b = -1;
      if (v->is_graph_output) b = claim_output_buffer(v);
      if (b < 0 && v == n.outputs[0]) {
        BufferRef r = in_place_source(n, call, op, v);
        if (r.buffer >= 0) {  // in place: the output overwrites a dead input
          op.outputs.push_back(r);
          bind(v, r);
          continue;
        }
        r = overlap_source(n, call, op, v);
        if (r.buffer >= 0) {  // partly over a dead input
          op.outputs.push_back(r);
          bind(v, r);
          continue;
        }
      }
      if (b < 0) b = new_buffer(v->name, BufferKind::Activation, v->size_bytes(), n.describe());
      op.outputs.push_back({b, 0});
      bind(v, {b, 0});
    }
    for (const auto& req : call.scratch) {
      int b = new_buffer(n.name + "." + req.purpose, BufferKind::Scratch, req.size_bytes, n.describe());
      prog_.buffers[size_t(b)].alignment = std::max(req.alignment, 4u);
      op.scratch.push_back({b, 0});
    }
    // Only one side of a run-time If needs this op: it runs under that condition.
    op.guards = guards_of(n);
    if (is_loop_begin(n)) {
      op.loop = LoopMark::Begin;
      // The whole loop runs under the End's conditions (the Begin's users may be
      // guarded by a run-time If inside the body).
      auto e = loop_end_of_begin_.find(&n);
      if (e == loop_end_of_begin_.end()) throw std::logic_error(n.describe() + " has no KilnLoopEnd");
      op.guards = guards_of(*e->second);
    } else if (is_loop_end(n)) {
      op.loop = LoopMark::End;
      lower_loop_end(n, op);
    }
    op.call = std::move(call);
    prog_.ops.push_back(std::move(op));
  }

  // The producer of a graph output writes straight into the caller's buffer.
  int claim_output_buffer(const Value* v) {
    for (size_t k = 0; k < g_.outputs.size(); ++k) {
      if (g_.outputs[k] != v || claimed_.count(int(k))) continue;
      claimed_.insert(int(k));
      int b = new_buffer(v->name, BufferKind::Output, v->size_bytes(), "graph output");
      prog_.buffers[size_t(b)].io_index = int(k);
      return b;
    }
    return -1;
  }

  // Every graph output not yet written by its producer: either the value's
  // buffer can become the caller's buffer (a view of an activation), or a copy
  // is needed (an input, a constant, an offset view, a value returned twice).
  void bind_outputs() {
    for (size_t k = 0; k < g_.outputs.size(); ++k) {
      if (claimed_.count(int(k))) continue;
      const Value* v = g_.outputs[k];
      auto it = where_.find(v);
      if (it == where_.end() && v->is_constant()) {
        Node dummy;
        dummy.op_type = "output";
        dummy.name = v->name;
        ref_of(v, dummy);
        it = where_.find(v);
      }
      if (it == where_.end()) throw CompileError("graph output " + in_quotes(v->name) + " is never computed");
      BufferRef src = it->second;
      Buffer& sb = prog_.buffers[size_t(src.buffer)];
      if (sb.kind == BufferKind::Activation && src.offset == 0 && sb.size_bytes == v->size_bytes()) {
        sb.kind = BufferKind::Output;
        sb.io_index = int(k);
        sb.name = v->name;
        claimed_.insert(int(k));
        continue;
      }
      std::string why;
      switch (sb.kind) {
        case BufferKind::Input: why = "it is the graph input '" + sb.name + "'"; break;
        case BufferKind::Constant: why = "it is a constant"; break;
        case BufferKind::Output: why = "the same value is also the graph output '" + sb.name + "'"; break;
        default: why = "it is a view at an offset into '" + sb.name + "'"; break;
      }
      int b = new_buffer(v->name, BufferKind::Output, v->size_bytes(), "graph output");
      prog_.buffers[size_t(b)].io_index = int(k);
      claimed_.insert(int(k));
      ScheduledOp copy;
      copy.label = "copy to output '" + v->name + "'";
      copy.call.call = "kiln_copy_bytes($out0, $in0, " + std::to_string(v->size_bytes()) + "u)";
      copy.inputs = {src};
      copy.input_dtypes = {v->dtype};
      copy.outputs = {{b, 0}};
      copy.output_dtypes = {v->dtype};
      prog_.ops.push_back(std::move(copy));
      prog_.copies.push_back("output '" + v->name + "' is copied because " + why);
    }
  }

  void compute_liveness() {
    const int64_t steps = int64_t(prog_.ops.size());
    for (auto& b : prog_.buffers) {
      b.first = steps;
      b.last = 0;
    }
    for (int64_t i = 0; i < steps; ++i) {
      const auto& op = prog_.ops[size_t(i)];
      for (const auto* refs : {&op.inputs, &op.outputs, &op.scratch, &op.constants})
        for (const auto& r : *refs) {
          if (r.buffer < 0) continue;
          auto& b = prog_.buffers[size_t(r.buffer)];
          b.first = std::min(b.first, i);
          b.last = std::max(b.last, i + 1);
        }
      for (const auto& gd : op.guards) {  // the condition is read when the op is reached
        auto& b = prog_.buffers[size_t(gd.cond.buffer)];
        b.first = std::min(b.first, i);
        b.last = std::max(b.last, i + 1);
      }
    }
    // Loop regions, innermost first: a scan output (an End output written every
    // iteration) lives from the region's start; a buffer written before the region
    // and touched inside it lives until the region's End.
    {
      std::vector<std::pair<int64_t, int64_t>> regions;  // (Begin step, End step)
      std::vector<int64_t> open;
      for (int64_t i = 0; i < steps; ++i) {
        const auto& op = prog_.ops[size_t(i)];
        if (op.loop == LoopMark::Begin) open.push_back(i);
        if (op.loop == LoopMark::End) {
          if (open.empty()) throw std::logic_error(op.label + " closes no loop region");
          regions.push_back({open.back(), i});
          open.pop_back();
        }
      }
      for (const auto& region : regions) {
        const int64_t bi = region.first, ei = region.second;  // (lambdas cannot capture bindings in Clang 14)
        const auto& end = prog_.ops[size_t(ei)];
        const size_t carried = size_t(end.node->attr_int("carried", 0));
        for (size_t k = carried; k < end.outputs.size(); ++k)
          if (end.outputs[k].buffer >= 0) {
            auto& b = prog_.buffers[size_t(end.outputs[k].buffer)];
            b.first = std::min(b.first, bi);
          }
        for (int64_t i = bi + 1; i <= ei; ++i) {
          const auto& op = prog_.ops[size_t(i)];
          auto extend = [&](int id) {
            if (id < 0) return;
            auto& b = prog_.buffers[size_t(id)];
            if (b.first < bi) b.last = std::max(b.last, ei + 1);
          };
          for (const auto* refs : {&op.inputs, &op.outputs, &op.scratch, &op.constants})
            for (const auto& r : *refs) extend(r.buffer);
          for (const auto& gd : op.guards) extend(gd.cond.buffer);
        }
      }
    }
    // The guards every op touching a buffer runs under: its run-time If side(s).
    std::vector<char> seen(prog_.buffers.size(), 0);
    std::vector<std::vector<std::pair<int, bool>>> sides(prog_.buffers.size());
    for (const auto& op : prog_.ops) {
      std::vector<std::pair<int, bool>> here;
      for (const auto& gd : op.guards) here.push_back({gd.group, gd.when});
      auto touch = [&](int b) {
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
      };
      for (const auto* refs : {&op.inputs, &op.outputs, &op.scratch, &op.constants})
        for (const auto& r : *refs) touch(r.buffer);
      for (const auto& gd : op.guards) touch(gd.cond.buffer);
    }
    for (size_t i = 0; i < prog_.buffers.size(); ++i) {
      auto& b = prog_.buffers[i];
      if (b.kind == BufferKind::Activation || b.kind == BufferKind::Scratch) b.only_when = sides[i];
    }
    for (auto& b : prog_.buffers) {
      // Caller-owned and constant memory exists for the whole run.
      if (b.kind == BufferKind::Input || b.kind == BufferKind::Output || b.kind == BufferKind::Constant) {
        b.first = 0;
        b.last = std::max<int64_t>(steps, 1);
      }
      if (b.first > b.last) b.first = b.last = 0;  // never referenced
    }
  }

  const Graph& g_;
  BufferizeOptions opt_;
  BufferizedProgram prog_;
  std::map<const Value*, BufferRef> where_;
  std::map<int, std::vector<const Value*>> holders_;  // buffer -> every value bound to it
  std::map<const Node*, int64_t> step_of_;            // node -> its index in the schedule
  std::map<const Node*, KernelCall> calls_;
  std::map<const Value*, int64_t> last_use_;          // schedule index of the last user
  std::map<const Node*, std::vector<BranchGuard>> guards_;  // ops of one side of a run-time If
  std::map<const Value*, int> cond_group_;                  // run-time If condition -> OpGuard::group
  std::map<const Value*, std::pair<const Value*, bool>> select_side_;  // placed into an If's output: (cond, side)
  std::map<const Value*, std::pair<const Node*, uint64_t>> placement_;  // Concat and byte offset
  std::set<const Value*> feeds_output_;  // a graph output is a view of these
  std::set<int> claimed_;
  std::map<const Node*, const Node*> loop_begin_of_end_, loop_end_of_begin_;
  std::map<const Node*, int64_t> region_of_;  // ir/loop_region.h: the innermost region of each node
};

}  // namespace

BufferizedProgram bufferize(const Graph& g, const LoweredGraph& lowered, const BufferizeOptions& options) {
  return Bufferizer(g, lowered, options).run();
}

}  // namespace kiln
