#include "schedule/patch_fusion.h"

#include "ir/loop_region.h"

#include <algorithm>
#include <set>
#include <vector>

#include "lower/patch_band.h"

namespace kiln {

namespace {

bool const_or_absent(const Value* v) { return !v || v->is_constant(); }

bool single_use(const Value* v) { return v && v->users.size() == 1 && !v->is_graph_output; }

bool plain_conv(const Node& c) {
  if (c.op_type != "Conv" || !c.domain.empty() || c.outputs.size() != 1) return false;
  const Value* x = c.input(0);
  const Value* w = c.input(1);
  if (!x || !w || !w->is_constant() || !const_or_absent(c.input(2))) return false;
  if (x->dtype != DType::Float32 || w->dtype != DType::Float32 || x->shape.size() != 4 || x->shape[0] != 1) return false;
  if (c.has_attr("auto_pad") && c.attr_string("auto_pad", "NOTSET") != "NOTSET") return false;
  for (int64_t d : c.attr_ints("dilations", {1, 1}))
    if (d != 1) return false;
  return w->shape.size() == 4;
}

bool pointwise(const Node& c) {
  if (!plain_conv(c) || c.attr_int("group", 1) != 1) return false;
  const Value* w = c.input(1);
  if (w->shape[2] != 1 || w->shape[3] != 1) return false;
  for (int64_t s : c.attr_ints("strides", {1, 1}))
    if (s != 1) return false;
  for (int64_t p : c.attr_ints("pads", {0, 0, 0, 0}))
    if (p != 0) return false;
  return true;
}

bool depthwise3x3(const Node& c) {
  if (!plain_conv(c)) return false;
  const Value* x = c.input(0);
  const Value* w = c.input(1);
  const int64_t ch = x->shape[1];
  if (c.attr_int("group", 1) != ch || w->shape != Shape{ch, 1, 3, 3}) return false;
  const auto s = c.attr_ints("strides", {1, 1});
  if (s.size() != 2 || s[0] != s[1] || (s[0] != 1 && s[0] != 2)) return false;
  const auto p = c.attr_ints("pads", {0, 0, 0, 0});
  if (p.size() != 4) return false;
  for (int64_t v : p)
    if (v < 0 || v > 1) return false;
  return true;
}

// Clip with constant scalar bounds (both given).
bool const_clip(const Node& n, double* lo, double* hi) {
  if (n.op_type != "Clip" || !n.domain.empty() || n.opset < 11 || n.outputs.size() != 1) return false;
  const Value* l = n.input(1);
  const Value* h = n.input(2);
  if (!l || !h || !l->is_constant() || !h->is_constant() || l->num_elements() != 1 || h->num_elements() != 1)
    return false;
  if (n.input(0)->dtype != DType::Float32) return false;
  *lo = l->constant->as_double(0);
  *hi = h->constant->as_double(0);
  return true;
}

struct Block {
  Node *expand, *clip1, *dw, *clip2, *project;
  double lo1, hi1, lo2, hi2;
};

bool match(Node* expand, Block* b) {
  b->expand = expand;
  if (!pointwise(*expand) || !single_use(expand->outputs[0])) return false;
  b->clip1 = expand->outputs[0]->users[0];
  if (!const_clip(*b->clip1, &b->lo1, &b->hi1) || !single_use(b->clip1->outputs[0])) return false;
  b->dw = b->clip1->outputs[0]->users[0];
  if (!depthwise3x3(*b->dw) || b->dw->input(0) != b->clip1->outputs[0] || !single_use(b->dw->outputs[0])) return false;
  b->clip2 = b->dw->outputs[0]->users[0];
  if (!const_clip(*b->clip2, &b->lo2, &b->hi2) || !single_use(b->clip2->outputs[0])) return false;
  b->project = b->clip2->outputs[0]->users[0];
  return pointwise(*b->project) && b->project->input(0) == b->clip2->outputs[0];
}

}  // namespace

size_t fuse_inverted_residuals(Graph& g, bool ram) {
  std::vector<Block> blocks;
  std::set<const Value*> inside;
  const auto region = loop_regions(g);  // a block never spans a Loop region's boundary
  for (const auto& n : g.nodes) {
    Block b;
    if (!match(n.get(), &b)) continue;
    if (region.at(b.expand) != region.at(b.project) || region.at(b.clip1) != region.at(b.project) ||
        region.at(b.dw) != region.at(b.project) || region.at(b.clip2) != region.at(b.project))
      continue;
    blocks.push_back(b);
    for (Node* m : {b.expand, b.clip1, b.dw, b.clip2}) inside.insert(m->outputs[0]);
  }
  if (blocks.empty()) return 0;
  uint64_t largest_outside = 0;
  for (const auto& vp : g.values())
    if (!inside.count(vp.get()) && !vp->is_constant() && vp->shape_known)
      largest_outside = std::max(largest_outside, vp->size_bytes());
  // Largest expanded tensor first; `peak` estimates the peak left after the blocks
  // fused so far (the largest tensor outside, the fused ops' input + output + scratch).
  auto expanded = [](const Block& b) { return b.expand->outputs[0]->size_bytes(); };
  std::stable_sort(blocks.begin(), blocks.end(), [&](const Block& a, const Block& b) { return expanded(a) > expanded(b); });
  uint64_t peak = largest_outside;
  size_t fused = 0;
  for (const Block& b : blocks) {
    if (expanded(b) <= (ram ? peak / 2 : peak)) continue;
    const Value* x = b.expand->input(0);
    const Value* d = b.dw->outputs[0];
    const PatchBand band = choose_patch_band(uint64_t(b.expand->outputs[0]->shape[1]),
                                             uint64_t(b.dw->attr_ints("strides", {1, 1})[0]), uint64_t(x->shape[3]),
                                             uint64_t(d->shape[3]), uint64_t(d->shape[2]), x->size_bytes(),
                                             b.project->outputs[0]->size_bytes(), expanded(b), ram);
    if (band.rows == 0) continue;  // the fused op would hold more than the expanded tensor
    peak = std::max(peak, x->size_bytes() + b.project->outputs[0]->size_bytes() + band.scratch_bytes);
    Value* y = b.project->outputs[0];
    auto pos = std::find_if(g.nodes.begin(), g.nodes.end(), [&](const auto& p) { return p.get() == b.project; });
    Node* f = g.add_node("KilnInvertedResidual", b.project->name,
                         {b.expand->input(0), b.expand->input(1), b.expand->input(2), b.dw->input(1), b.dw->input(2),
                          b.project->input(1), b.project->input(2)},
                         {});
    f->attrs = b.dw->attrs;
    f->opset = b.dw->opset;
    f->attrs["lo1"] = b.lo1;
    f->attrs["hi1"] = b.hi1;
    f->attrs["lo2"] = b.lo2;
    f->attrs["hi2"] = b.hi2;
    g.nodes.splice(pos, g.nodes, std::prev(g.nodes.end()));
    b.project->outputs.clear();
    y->producer = f;
    f->outputs = {y};
    for (Node* m : {b.project, b.clip2, b.dw, b.clip1, b.expand}) g.erase_node(m);
    ++fused;
  }
  if (fused) g.remove_dead_values();
  return fused;
}

}  // namespace kiln
