// Scan lowering: the body is unrolled once per step of the (static) scanned axis.
// A KilnTakeSlice node feeds each step its slice of every scanned input (in the
// input's direction), Reshape + Concat stack the scan outputs along their axis (in
// their direction), and an Identity passes the final state out. Opset 8's form
// (a batch dimension and an optional sequence_lens) is taken with batch 1 only.
#include <algorithm>

#include "controlflow/flattener.h"
#include "util/error.h"
#include "util/quoted.h"

namespace kiln::controlflow {

void Flattener::flatten_scan(const NodeView& nv) {
  const Node& np = *nv.node;
  const std::string& name = nv.name;
  const std::string who = "Scan " + in_quotes(name);
  const int64_t opset = np.opset;
  const Graph* body = subgraph(np, "body");
  const int64_t m = np.attr_int("num_scan_inputs", -1);
  if (!body || m < 1) throw CompileError(who + ": malformed Scan");
  // Opset 8 has a leading optional sequence_lens input and a batch dim on every
  // input and output (scan axis 1). Kiln takes batch 1 without sequence_lens and
  // reshapes the batch dim away around the body.
  const bool v8 = opset < 9;
  std::vector<Value*> ins;
  for (size_t i = v8 ? 1 : 0; i < nv.own_inputs; ++i) {
    Value* v = nv.input(i);
    if (!v) throw CompileError(who + ": input " + std::to_string(i) + " is omitted");
    ins.push_back(v);
  }
  if (v8 && nv.own_inputs > 0 && nv.input(0))
    throw CompileError(who + ": sequence_lens is not supported (opset 8 Scan)");
  const size_t nstate = ins.size() - size_t(m);
  if (ins.size() < size_t(m)) throw CompileError(who + ": fewer inputs than num_scan_inputs");
  auto attr_at = [&](const char* k, size_t i) -> int64_t {
    const std::vector<int64_t> v = np.attr_ints(k);
    return i < v.size() ? v[i] : 0;
  };
  std::vector<Value*> state(ins.begin(), ins.begin() + std::ptrdiff_t(nstate));
  std::vector<Value*> scans(ins.begin() + std::ptrdiff_t(nstate), ins.end());
  if (v8)
    for (Value* v : ins)
      if (v->shape.empty() || v->shape[0] != 1)
        throw CompileError(who + ": opset 8 Scan with batch size other than 1 is not supported");
  int64_t steps = -1;
  std::vector<int64_t> axes;
  for (size_t j = 0; j < scans.size(); ++j) {
    const int64_t r = int64_t(scans[j]->shape.size());
    int64_t ax = v8 ? 1 : attr_at("scan_input_axes", j);
    if (ax < 0) ax += r;
    if (ax < 0 || ax >= r) throw CompileError(who + ": scan_input_axes out of range");
    if (steps >= 0 && scans[j]->shape[size_t(ax)] != steps)
      throw CompileError(who + ": scanned inputs have different lengths");
    steps = scans[j]->shape[size_t(ax)];
    axes.push_back(ax);
  }
  // Body-side shapes of the state come from the body's declared inputs.
  std::vector<Shape> body_in_shapes;
  for (const Value* vi : body->inputs) {
    if (vi->is_sequence || vi->dtype == DType::Undefined || !vi->shape_known)
      throw CompileError(who + ": subgraph value " + in_quotes(vi->name) + " is not a tensor of known shape");
    body_in_shapes.push_back(vi->shape);
  }
  if (body_in_shapes.size() != ins.size()) throw CompileError(who + ": body inputs do not match the node's");
  for (size_t i = 0; i < nstate; ++i) state[i] = reshape(state[i], body_in_shapes[i], name + ".state_in");
  if (body->outputs.size() < nstate) throw CompileError(who + ": the body has fewer outputs than state values");
  const size_t nscan_out = body->outputs.size() - nstate;
  std::vector<std::vector<Value*>> per_step(nscan_out);
  for (int64_t t = 0; t < steps; ++t) {
    std::vector<Value*> bound = state;
    for (size_t j = 0; j < scans.size(); ++j) {
      const Value* x = scans[j];
      const int64_t idx = attr_at("scan_input_directions", j) ? steps - 1 - t : t;
      int64_t outer = 1, inner = 1;
      for (size_t d = 0; d < x->shape.size(); ++d)
        if (int64_t(d) < axes[j]) outer *= x->shape[d];
        else if (int64_t(d) > axes[j]) inner *= x->shape[d];
      Value* slice = g_.add_value(g_.unique_name(name + ".slice"), x->dtype, body_in_shapes[nstate + j]);
      if (slice->num_elements() != outer * inner) throw CompileError(who + ": body input shape does not match a slice");
      Node* n = g_.add_node("KilnTakeSlice", g_.unique_name(name + ".take"), {scans[j]}, {slice});
      n->attrs["outer"] = outer;
      n->attrs["axis_len"] = steps;
      n->attrs["inner"] = inner;
      n->attrs["index"] = idx;
      bound.push_back(slice);
    }
    std::vector<Value*> outs = import_body(*body, bound, nv.captured, name + ".step" + std::to_string(t) + ".", who);
    for (size_t i = 0; i < nstate; ++i) state[i] = outs[i];
    for (size_t k = 0; k < nscan_out; ++k) per_step[k].push_back(outs[nstate + k]);
  }
  for (size_t i = 0; i < nstate; ++i) {
    Value* out = nv.make_output(i);
    Value* src = reshape(state[i], out->shape, name + ".state_out");
    g_.add_node("Identity", g_.unique_name(name + ".final"), {src}, {out});
  }
  for (size_t k = 0; k < nscan_out; ++k) {
    Value* out = nv.make_output(nstate + k);
    const int64_t r = int64_t(out->shape.size());
    int64_t ax = v8 ? 1 : attr_at("scan_output_axes", k);
    if (ax < 0) ax += r;
    if (ax < 0 || ax >= r || steps < 1) throw CompileError(who + ": scan output " + std::to_string(k) + " is not supported");
    Shape piece = out->shape;
    piece[size_t(ax)] = 1;
    std::vector<Value*> parts;
    for (Value* v : per_step[k]) parts.push_back(reshape(v, piece, name + ".piece"));
    if (attr_at("scan_output_directions", k)) std::reverse(parts.begin(), parts.end());
    Node* c = g_.add_node("Concat", g_.unique_name(name + ".stack"), parts, {out});
    c->attrs["axis"] = ax;
  }
}

}  // namespace kiln::controlflow
