// Bufferization's entry point (bufferize.h) and its main loop: the analysis before
// the first op, then each op lowered to a ScheduledOp whose inputs, outputs and
// scratch are buffer references. The concerns it defers to have their own files
// (internal/bufferizer.h lists them).
#include "bufferize/bufferize.h"

#include <algorithm>
#include <stdexcept>

#include "bufferize/internal/bufferizer.h"
#include "bufferize/internal/liveness.h"
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
    case BufferKind::State: return "state";
  }
  return "?";
}

BufferizedProgram bufferize(const Graph& g, const LoweredGraph& lowered, const BufferizeOptions& options) {
  return bufferize_internal::Bufferizer(g, lowered, options).run();
}

}  // namespace kiln

namespace kiln::bufferize_internal {

BufferizedProgram Bufferizer::run() {
  for (size_t k = 0; k < g_.inputs.size(); ++k) {
    const Value* v = g_.inputs[k];
    if (const StateVariable* s = g_.state_of_input(k)) {
      bind(v, {state_buffer(*s), 0});  // state.cpp
      continue;
    }
    int b = new_buffer(v->name, BufferKind::Input, v->size_bytes(), "graph input");
    prog_.buffers[size_t(b)].io_index = int(k);
    bind(v, {b, 0});
  }
  analyse();
  for (const auto& n : g_.nodes) lower(*n);
  bind_outputs();
  write_back_states();
  compute_buffer_liveness(prog_);
  return std::move(prog_);
}

int Bufferizer::new_buffer(const std::string& name, BufferKind kind, uint64_t size, const std::string& origin) {
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
void Bufferizer::bind(const Value* v, BufferRef r) {
  where_[v] = r;
  if (r.buffer >= 0) holders_[r.buffer].push_back(v);
}

BufferRef Bufferizer::ref_of(const Value* v, const Node& user) {
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

// Numbers the schedule, finds each value's last use (liveness.h) and plans
// placements (views.h): which producers write straight into a Concat slice or an
// If's output.
void Bufferizer::analyse() {
  guards_ = branch_guards(g_);
  int64_t i = 0;
  for (const auto& n : g_.nodes) {
    step_of_[n.get()] = i++;
    if (!calls_.count(n.get())) throw std::logic_error(n->describe() + " was not lowered before bufferization");
  }
  last_use_ = value_last_uses(g_, step_of_);
  region_of_ = loop_regions(g_);
  for (const auto& n : g_.nodes)
    if (is_loop_end(*n)) {
      const Node* begin = n->input(0) ? n->input(0)->producer : nullptr;
      if (!begin || !is_loop_begin(*begin)) throw std::logic_error(n->describe() + " has no KilnLoopBegin");
      loop_begin_of_end_[n.get()] = begin;
      loop_end_of_begin_[begin] = n.get();
    }
  // Values a graph output is a whole-buffer view of: their buffer becomes the
  // caller's (bind_outputs), so in place they may only take a buffer of their size.
  for (const Value* o : g_.outputs)
    for (const Value* v = o; v && v->producer && calls_[v->producer].alias_input >= 0;)
      feeds_output_.insert(v = v->producer->input(size_t(calls_[v->producer].alias_input)));
  placements_ = plan_placements(g_, calls_, guards_, opt_);
  find_state_feeds();  // state.cpp
}

void Bufferizer::lower(const Node& n) {
  KernelCall call = calls_.at(&n);
  ScheduledOp op;
  op.node = &n;
  op.label = n.describe();
  lower_inputs(n, call, op);
  if (lower_view(n, call, op)) return;  // views.cpp

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

  lower_outputs(n, call, op);
  lower_scratch_guards_and_loop(n, call, op);
  op.call = std::move(call);
  prog_.ops.push_back(std::move(op));
}

// The op's inputs (a constant the kernel does not read gets no buffer on its
// account) and the constants its lowering computed, each a parameter buffer.
void Bufferizer::lower_inputs(const Node& n, const KernelCall& call, ScheduledOp& op) {
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
}

// Where each output goes: an existing slot (a placed input's producer made it), its
// slice of a Concat or If output, its loop-carried buffer, the caller's output
// buffer, a dead input's bytes (in place or overlapping), else a fresh buffer.
void Bufferizer::lower_outputs(const Node& n, KernelCall& call, ScheduledOp& op) {
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
    if (placements_.into.count(v)) {  // written straight into its slice of a Concat
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
    if (BufferRef r = state_slot(n, call, op, v); r.buffer >= 0) {  // the state's end value, in its buffer
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
}

// The op's scratch buffers, the run-time If sides it runs under, and its role in a
// loop region.
void Bufferizer::lower_scratch_guards_and_loop(const Node& n, const KernelCall& call, ScheduledOp& op) {
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
}

// The producer of a graph output writes straight into the caller's buffer.
int Bufferizer::claim_output_buffer(const Value* v) {
  for (size_t k = 0; k < g_.outputs.size(); ++k) {
    if (g_.outputs[k] != v || claimed_.count(int(k)) || g_.state_of_output(k)) continue;
    claimed_.insert(int(k));
    int b = new_buffer(v->name, BufferKind::Output, v->size_bytes(), "graph output");
    prog_.buffers[size_t(b)].io_index = int(k);
    return b;
  }
  return -1;
}

int Bufferizer::group_of(const Value* cond) { return cond_group_.emplace(cond, int(cond_group_.size())).first->second; }

// The guards `n` runs under (empty: always runs).
std::vector<OpGuard> Bufferizer::guards_of(const Node& n) {
  std::vector<OpGuard> out;
  if (auto g = guards_.find(&n); g != guards_.end())
    for (const BranchGuard& bg : g->second) {
      auto w = where_.find(bg.cond);
      if (w != where_.end() && w->second.buffer >= 0) out.push_back({w->second, bg.when, group_of(bg.cond)});
    }
  return out;
}

}  // namespace kiln::bufferize_internal
