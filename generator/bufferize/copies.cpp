// Copies: where the bufferizer cannot alias or place a value and writes a byte copy
// instead, each listed with its reason in BufferizedProgram::copies (the report
// prints them): a Concat input that could not be computed into its slice, a
// run-time If side whose producer does not run only on that side, a loop's next
// value that is another carried value (a swap), and a graph output that cannot take
// the caller's buffer (a graph input, a constant, a value returned twice, a view at
// an offset).
#include <set>

#include "bufferize/internal/bufferizer.h"
#include "util/error.h"
#include "util/quoted.h"

namespace kiln::bufferize_internal {

// A byte copy scheduled as part of `n` (aliasing off, or a Concat input that
// could not be placed).
void Bufferizer::push_copy(const Node& n, const std::string& label, BufferRef src, BufferRef dst, const Value* v) {
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
void Bufferizer::lower_placed_concat(const Node& n, const KernelCall& call, const ScheduledOp& op) {
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
                      : placements_.into.count(v) && placements_.into.at(v).first != &n
                          ? "it is placed into another Concat"
                          : "it is a view or appears twice";
    prog_.copies.push_back(n.describe() + ": input '" + v->name + "' is copied into its slice because " + why);
  }
}

// A run-time If's KilnSelect whose output buffer a branch's producer already
// wrote into: the other branch's value, unless placed there too, is copied
// under its side's guard; with both placed nothing runs.
void Bufferizer::lower_placed_select(const Node& n, const ScheduledOp& op) {
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

// A loop region's End: a carried value passed on from another carried value (or
// from the iteration number / cond_in) is first copied out of the Begin's
// buffers, so the End's copies into them can run one after another.
void Bufferizer::lower_loop_end(const Node& n, ScheduledOp& op) {
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

// Every graph output not yet written by its producer: either the value's
// buffer can become the caller's buffer (a view of an activation), or a copy
// is needed (an input, a constant, an offset view, a value returned twice).
void Bufferizer::bind_outputs() {
  for (size_t k = 0; k < g_.outputs.size(); ++k) {
    if (claimed_.count(int(k)) || g_.state_of_output(k)) continue;  // a state's end value: state.cpp
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
      case BufferKind::State: why = "it is the state '" + sb.name + "'"; break;
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

}  // namespace kiln::bufferize_internal
