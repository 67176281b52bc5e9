#include "schedule/residual_fusion.h"

#include <algorithm>
#include <vector>

#include "ir/loop_region.h"

namespace kiln {

namespace {

bool fusable_conv(const Node& c) {
  if (c.op_type != "Conv" || !c.domain.empty() || c.outputs.size() != 1 || c.inputs.size() < 2) return false;
  const Value* x = c.input(0);
  const Value* w = c.input(1);
  const Value* b = c.input(2);
  const Value* y = c.outputs[0];
  if (!x || !w || !w->is_constant() || (b && !b->is_constant())) return false;
  if (x->dtype != DType::Float32 || y->dtype != DType::Float32 || w->dtype != DType::Float32) return false;
  if (x->shape.size() < 3 || x->shape[0] != 1 || c.attr_int("group", 1) != 1) return false;
  if (w->shape.size() != x->shape.size()) return false;
  if (c.attrs.count("auto_pad") && c.attr_string("auto_pad", "NOTSET") != "NOTSET") return false;
  return y->users.size() == 1 && !y->is_graph_output;
}

// The value `v` is a view of (Reshape, Flatten, ...: same bytes).
const Value* view_root(const Value* v) {
  static const char* views[] = {"Reshape", "Flatten", "Identity", "Squeeze", "Unsqueeze"};
  while (v && v->producer && v->producer->domain.empty()) {
    bool is_view = false;
    for (const char* t : views) is_view = is_view || v->producer->op_type == t;
    if (!is_view) break;
    v = v->producer->input(0);
  }
  return v;
}

}  // namespace

size_t fuse_residual_adds(Graph& g) {
  size_t fused = 0;
  std::vector<Node*> adds;
  const auto region = loop_regions(g);  // never fused across a Loop region's boundary
  for (const auto& n : g.nodes)
    if (n->op_type == "Add" && n->domain.empty() && n->inputs.size() == 2 && n->outputs.size() == 1) adds.push_back(n.get());
  for (Node* add : adds) {
    Value* a = add->inputs[0];
    Value* b = add->inputs[1];
    Value* y = add->outputs[0];
    if (!a || !b || a == b || a->shape != b->shape || a->shape != y->shape || y->dtype != DType::Float32) continue;
    Node* conv = nullptr;
    Value* r = nullptr;
    for (auto [c, other] : {std::pair{a, b}, std::pair{b, a}})
      if (!conv && c->producer && fusable_conv(*c->producer) && other->dtype == DType::Float32) conv = c->producer, r = other;
    // The kernel writes over r: r may not be the convolution's own input.
    if (!conv || view_root(r) == view_root(conv->input(0))) continue;
    if (region.at(conv) != region.at(add)) continue;
    // The fused op takes the Add's place in the schedule (r and the conv's inputs
    // are all computed before the Add).
    auto pos = std::find_if(g.nodes.begin(), g.nodes.end(), [&](const auto& p) { return p.get() == add; });
    Node* f = g.add_node("KilnConvAdd", conv->name, {conv->input(0), conv->input(1), conv->input(2), r}, {});
    f->attrs = conv->attrs;
    f->opset = conv->opset;
    g.nodes.splice(pos, g.nodes, std::prev(g.nodes.end()));
    add->outputs.clear();
    y->producer = f;
    f->outputs = {y};
    g.erase_node(add);
    g.erase_node(conv);
    ++fused;
  }
  if (fused) g.remove_dead_values();
  return fused;
}

}  // namespace kiln
