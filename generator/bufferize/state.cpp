// State kept between runs (ir/graph.h, StateVariable): one State buffer per state
// holds its start value (the graph input) and, once the run ends, its end value
// (the graph output). The end value's producer writes straight into the buffer
// when nothing reads the start value after it (the state_slot rules below);
// otherwise the end value is computed elsewhere and copied into the buffer after
// the last operator, when every read of the start value is done.
#include <algorithm>

#include "bufferize/internal/bufferizer.h"

namespace kiln::bufferize_internal {

namespace {

// A byte copy the bufferizer adds after the last operator.
ScheduledOp copy_op(const std::string& label, BufferRef src, BufferRef dst, DType dtype, uint64_t bytes) {
  ScheduledOp copy;
  copy.label = label;
  copy.call.call = "kiln_copy_bytes($out0, $in0, " + std::to_string(bytes) + "u)";
  copy.inputs = {src};
  copy.input_dtypes = {dtype};
  copy.outputs = {dst};
  copy.output_dtypes = {dtype};
  return copy;
}

}  // namespace

int Bufferizer::state_buffer(const StateVariable& s) {
  const Value* v = g_.inputs[s.input];
  int b = new_buffer(v->name, BufferKind::State, v->size_bytes(), "state");
  prog_.buffers[size_t(b)].constant = s.initial;
  prog_.buffers[size_t(b)].io_index = int(&s - g_.states.data());
  return b;
}

// The values a state's end value is a whole-buffer view of (Reshape, Identity, ...),
// the end value itself included: whichever of them an operator computes may be
// computed into the state's buffer.
void Bufferizer::find_state_feeds() {
  for (const StateVariable& s : g_.states) {
    if (!s.output) continue;
    const Value* v = g_.outputs[*s.output];
    for (;;) {
      if (v->size_bytes() != g_.inputs[s.input]->size_bytes()) break;
      state_feeds_[v] = &s;
      if (!v->producer || calls_[v->producer].alias_input < 0 || !calls_[v->producer].input_offsets.empty()) break;
      v = v->producer->input(size_t(calls_[v->producer].alias_input));
      if (!v) break;
    }
  }
}

// Output `v` of `n` computed straight into its state's buffer: `v` feeds a
// state's end value and nothing else the caller sees, `n` runs unconditionally
// outside any loop region, and every value held by the state's buffer (its start
// value and views of it) is last read before `n`, or by `n` itself at an input
// its kernel may overwrite in place. Absent ref: not possible.
BufferRef Bufferizer::state_slot(const Node& n, const KernelCall& call, const ScheduledOp& op, const Value* v) {
  auto f = state_feeds_.find(v);
  if (!opt_.in_place || f == state_feeds_.end()) return {};
  const StateVariable& s = *f->second;
  // Returned to the caller too, or twice: that output needs its own bytes.
  if (std::count(g_.outputs.begin(), g_.outputs.end(), g_.outputs[*s.output]) != 1) return {};
  if (v != g_.outputs[*s.output] && v->is_graph_output) return {};
  auto region = region_of_.find(&n);
  if (!guards_of(n).empty() || (region != region_of_.end() && region->second >= 0)) return {};
  const BufferRef state = where_.at(g_.inputs[s.input]);
  const int64_t now = step_of_.at(&n);
  for (const Value* h : holders_[state.buffer]) {
    const int64_t last = last_use_.at(h);
    if (last < now) continue;
    if (last > now) return {};
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      if (n.inputs[i] != h) continue;
      const bool in_place = std::find(call.in_place_inputs.begin(), call.in_place_inputs.end(), int(i)) !=
                            call.in_place_inputs.end();
      if (!in_place || op.inputs[i].offset != 0 || h->size_bytes() != v->size_bytes() || h->dtype != v->dtype)
        return {};
    }
  }
  return state;
}

// Each state whose end value is not in its buffer yet gets a copy there, after the
// last operator. An end value that is another state's start value is first copied
// aside, since that state's own write-back may come first.
void Bufferizer::write_back_states() {
  std::vector<std::pair<const StateVariable*, BufferRef>> pending;
  for (const StateVariable& s : g_.states) {
    if (!s.output) continue;
    const Value* v = g_.outputs[*s.output];
    if (v->is_constant() && !where_.count(v)) {
      Node dummy;
      dummy.op_type = "state";
      dummy.name = s.name;
      ref_of(v, dummy);
    }
    const BufferRef dst = where_.at(g_.inputs[s.input]);
    BufferRef src = where_.at(v);
    if (src.buffer == dst.buffer && src.offset == dst.offset) continue;  // computed in place
    std::string why = "its last value is computed before the last read of the value it started with";
    if (prog_.buffers[size_t(src.buffer)].kind == BufferKind::State) {
      const int b = new_buffer(v->name + ".next", BufferKind::Activation, v->size_bytes(), "state '" + s.name + "'");
      prog_.ops.push_back(copy_op("copy of state '" + s.name + "''s end value aside", src, {b, 0}, v->dtype, v->size_bytes()));
      src = {b, 0};
      why = "it is the value another state started with";
    } else if (v->is_constant()) {
      why = "it is a constant";
    } else if (v->is_graph_input) {
      why = "it is the graph input '" + v->name + "'";
    } else if (std::count(g_.outputs.begin(), g_.outputs.end(), v) > 1) {
      why = "it is also a graph output";
    }
    pending.push_back({&s, src});
    prog_.copies.push_back("state '" + s.name + "' is written back by a copy after the last operator because " + why);
  }
  for (const auto& [s, src] : pending) {
    const Value* start = g_.inputs[s->input];
    prog_.ops.push_back(
        copy_op("write back state '" + s->name + "'", src, where_.at(start), start->dtype, start->size_bytes()));
  }
}

}  // namespace kiln::bufferize_internal
