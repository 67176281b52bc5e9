// The control-flow pass (control_flow.h): walks the graph's schedule, takes each
// If / Scan / Loop that can be lowered now out of the graph, has the Flattener
// (flattener.h) lower it, and splices the new nodes into its place; then turns
// each KilnSelect whose condition became a constant into an Identity.
#include "controlflow/control_flow.h"

#include <algorithm>

#include "controlflow/compile_time.h"
#include "controlflow/flattener.h"
#include "controlflow/node_view.h"
#include "util/error.h"
#include "util/quoted.h"

namespace kiln {

namespace {

using controlflow::is_control_flow;
using controlflow::is_omitted_output;
using controlflow::known_bool;
using controlflow::loop_decidable;

// A node of the graph itself: its inputs and outputs exist and are the graph's.
class GraphNodeView : public controlflow::NodeView {
 public:
  explicit GraphNodeView(Node* n) : n_(n), who_(n->describe()) {
    node = n;
    name = n->name;
    own_inputs = n->own_input_count();
    captured = controlflow::captured_values(*n, [](Value* v) { return v; });
  }

  Value* input(size_t i) const override { return i < own_inputs ? n_->inputs[i] : nullptr; }
  Value* make_output(size_t i) const override {
    Value* v = n_->outputs[i];
    if (!v->is_sequence && (!v->shape_known || v->dtype == DType::Undefined))
      throw CompileError(who_ + ": value " + in_quotes(v->name) + " has no static shape (Kiln needs static shapes; pass " +
                         "--input-shape NAME=D0,D1,... for dynamic inputs)");
    return v;
  }
  Value* make_open_output(size_t i) const override { return n_->outputs[i]; }
  // A type the node declares statically is the one the flattening must produce;
  // an open one (a scan output's length) takes the computed type.
  Value* make_output_typed(size_t i, DType dt, const Shape& shape) const override {
    Value* v = n_->outputs[i];
    if (v->is_sequence || (v->shape_known && v->dtype != DType::Undefined)) return v;
    v->dtype = dt;
    v->shape = shape;
    v->shape_known = true;
    return v;
  }

 private:
  Node* n_;
  std::string who_;
};

// KilnSelect(cond, a, b) whose condition folding made constant (a Loop's "still
// active" flag once its trip count and stop condition folded): an Identity of the
// chosen value. Returns how many it replaced.
size_t decide_selects(Graph& graph) {
  size_t decided = 0;
  for (auto& n : graph.nodes) {
    if (n->op_type != "KilnSelect" || !n->domain.empty() || n->inputs.size() != 3 || !n->inputs[0]) continue;
    if (n->outputs.size() != 1 || n->outputs[0]->is_sequence) continue;  // sequences: the sequence pass
    const int k = known_bool(n->inputs[0]);
    if (k < 0) continue;
    Value* chosen = n->inputs[k == 1 ? 1 : 2];
    n->op_type = "Identity";
    for (Value* in : n->inputs) {
      if (!in) continue;
      auto u = std::find(in->users.begin(), in->users.end(), n.get());
      if (u != in->users.end()) in->users.erase(u);
    }
    n->inputs = {chosen};
    chosen->users.push_back(n.get());
    ++decided;
  }
  return decided;
}

// Whether lowering `n` (an If of the graph) changes anything now.
bool if_decidable(const Node& n, bool undecided_too) {
  if (undecided_too || n.inputs.empty() || !n.inputs[0] || known_bool(n.inputs[0]) >= 0) return true;
  return std::any_of(n.outputs.begin(), n.outputs.end(), [](const Value* v) { return v->is_sequence; });
}

}  // namespace

size_t lower_control_flow(Graph& graph, bool undecided_too, const ControlFlowOptions& options) {
  size_t lowered = 0;
  bool omitted_left = false;
  for (auto it = graph.nodes.begin(); it != graph.nodes.end();) {
    Node* n = it->get();
    if (!is_control_flow(*n) || (n->op_type == "If" && !if_decidable(*n, undecided_too)) ||
        (n->op_type == "Loop" && !undecided_too && !loop_decidable(GraphNodeView(n)))) {
      ++it;
      continue;
    }
    const GraphNodeView nv(n);
    for (size_t i = 0; i < n->outputs.size(); ++i) omitted_left |= is_omitted_output(*n, n->outputs[i]);
    // Take the node out (kept alive while its subgraphs are instantiated); its
    // outputs keep their users and get new producers.
    std::unique_ptr<Node> owned = std::move(*it);
    for (Value* in : n->inputs) {
      if (!in) continue;
      auto u = std::find(in->users.begin(), in->users.end(), n);
      if (u != in->users.end()) in->users.erase(u);
    }
    for (Value* o : n->outputs) o->producer = nullptr;
    const auto next = graph.nodes.erase(it);
    const size_t before = graph.nodes.size();
    controlflow::Flattener(graph, options).flatten(nv, undecided_too);
    // The new nodes (appended) go where the node was; nested If nodes among them
    // are looked at next.
    auto first_new = std::next(graph.nodes.begin(), std::ptrdiff_t(before));
    const bool any_new = first_new != graph.nodes.end();
    graph.nodes.splice(next, graph.nodes, first_new, graph.nodes.end());
    it = any_new ? first_new : next;
    ++lowered;
  }
  // Outputs the model left out are values nothing produces now.
  if (omitted_left) graph.remove_dead_values();
  return lowered + decide_selects(graph);
}

}  // namespace kiln
