#include "quant/boundary_layout.h"

#include <vector>

#include "ir/kiln_ops.h"
#include "quant/graph_edit.h"
#include "quant/layout.h"

namespace kiln::quant {

namespace {

// An int8 rank-4 Transpose NCHW -> NHWC (the one the QDQ rewrite puts before a
// spatial op).
bool is_to_nhwc(const Node* n) {
  if (!n || n->op_type != "Transpose" || !(n->domain.empty() || n->domain == "ai.onnx")) return false;
  const Value* x = n->input(0);
  return x && x->dtype == DType::Int8 && x->shape.size() == 4 && n->attr_ints("perm", {}) == kToNhwc;
}

// A reader that can take the NCHW tensor instead: a one-group KilnQConv2D reading
// it as its input 0 (and not also as another operand).
bool can_read_nchw(const Node* u, const Value* v) {
  if (u->op_type != "KilnQConv2D" || u->input(0) != v) return false;
  for (size_t i = 1; i < u->inputs.size(); ++i)
    if (u->input(i) == v) return false;
  const auto a = ops::get_attrs<ops::QConv2D>(*u);
  return a.group == 1 && a.input_nchw == 0;
}

}  // namespace

int absorb_boundary_transposes(Graph& g, const RefusesFn& refuses) {
  int absorbed = 0;
  std::vector<Node*> transposes;
  for (const auto& n : g.nodes)
    if (is_to_nhwc(n.get()) && !n->outputs[0]->is_graph_output) transposes.push_back(n.get());
  for (Node* t : transposes) {
    Value* nhwc = t->outputs[0];
    Value* nchw = t->input(0);
    const std::vector<Node*> readers = nhwc->users;  // set_input edits the list
    for (Node* u : readers) {
      if (!can_read_nchw(u, nhwc)) continue;
      ops::QConv2D a = ops::get_attrs<ops::QConv2D>(*u);
      a.input_nchw = 1;
      ops::set_attrs(*u, a);
      set_input(u, 0, nchw);
      if (refuses && refuses(*u)) {  // this target has no NCHW form of it: keep the Transpose
        a.input_nchw = 0;
        ops::set_attrs(*u, a);
        set_input(u, 0, nhwc);
        continue;
      }
      absorbed++;
    }
    erase_if_dead(g, t);
  }
  return absorbed;
}

}  // namespace kiln::quant
