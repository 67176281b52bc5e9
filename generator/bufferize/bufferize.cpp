#include "bufferize/bufferize.h"

#include <algorithm>
#include <map>
#include <set>

#include "util/error.h"

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
  Bufferizer(const Graph& g, const BufferizeOptions& o) : g_(g), opt_(o) {}

  BufferizedProgram run() {
    for (size_t k = 0; k < g_.inputs.size(); ++k) {
      const Value* v = g_.inputs[k];
      int b = new_buffer(v->name, BufferKind::Input, v->size_bytes(), "graph input");
      prog_.buffers[size_t(b)].io_index = int(k);
      where_[v] = {b, 0};
    }
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

  BufferRef ref_of(const Value* v, const Node& user) {
    if (v == nullptr) return {};
    if (v->is_constant()) {
      auto it = where_.find(v);
      if (it != where_.end()) return it->second;
      int b = new_buffer(v->name, BufferKind::Constant, v->constant->size_bytes(), "constant");
      prog_.buffers[size_t(b)].constant = v->constant;
      where_[v] = {b, 0};
      return {b, 0};
    }
    auto it = where_.find(v);
    if (it == where_.end())
      throw CompileError(user.describe() + ": input '" + v->name + "' is used before it is computed");
    return it->second;
  }

  void lower(const Node& n) {
    KernelCall call = lower_node(n);
    ScheduledOp op;
    op.node = &n;
    op.label = n.describe();
    for (const Value* v : n.inputs) {
      op.inputs.push_back(ref_of(v, n));
      op.input_dtypes.push_back(v ? v->dtype : DType::Undefined);
    }

    if (call.alias_input >= 0) {
      const Value* src = n.input(size_t(call.alias_input));
      const Value* dst = n.outputs.at(0);
      if (!src) throw CompileError(n.describe() + ": view of an omitted input");
      BufferRef src_ref = op.inputs[size_t(call.alias_input)];
      if (opt_.alias_views) {
        // A view: the output is the same bytes, so it shares the buffer.
        where_[dst] = src_ref;
        return;
      }
      // Aliasing switched off (for measurements): an explicit copy.
      int b = new_buffer(dst->name, BufferKind::Activation, dst->size_bytes(), n.describe());
      where_[dst] = {b, 0};
      ScheduledOp copy;
      copy.node = &n;
      copy.label = n.describe() + " (copy, aliasing off)";
      copy.call.call = "kiln_copy_bytes($out0, $in0, " + std::to_string(dst->size_bytes()) + "u)";
      copy.inputs = {src_ref};
      copy.input_dtypes = {src->dtype};
      copy.outputs = {{b, 0}};
      copy.output_dtypes = {dst->dtype};
      prog_.ops.push_back(std::move(copy));
      return;
    }

    for (const Value* v : n.outputs) {
      op.output_dtypes.push_back(v->dtype);
      if (v->dtype == DType::Undefined) {  // an omitted optional output
        op.outputs.push_back({});
        continue;
      }
      int b = -1;
      if (v->is_graph_output) b = claim_output_buffer(v);
      if (b < 0) b = new_buffer(v->name, BufferKind::Activation, v->size_bytes(), n.describe());
      op.outputs.push_back({b, 0});
      where_[v] = {b, 0};
    }
    for (const auto& req : call.scratch) {
      int b = new_buffer(n.name + "." + req.purpose, BufferKind::Scratch, req.size_bytes, n.describe());
      prog_.buffers[size_t(b)].alignment = std::max(req.alignment, 4u);
      op.scratch.push_back({b, 0});
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
      if (it == where_.end()) throw CompileError("graph output '" + v->name + "' is never computed");
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
      for (const auto* refs : {&op.inputs, &op.outputs, &op.scratch})
        for (const auto& r : *refs) {
          if (r.buffer < 0) continue;
          auto& b = prog_.buffers[size_t(r.buffer)];
          b.first = std::min(b.first, i);
          b.last = std::max(b.last, i + 1);
        }
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
  std::set<int> claimed_;
};

}  // namespace

BufferizedProgram bufferize(const Graph& g, const BufferizeOptions& options) {
  return Bufferizer(g, options).run();
}

}  // namespace kiln
