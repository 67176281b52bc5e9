// If lowering: a condition known at compile time (a constant, seen through
// Identity) takes its branch alone, an Identity per output giving the If's outputs
// the branch's types; a condition on run-time data waits (the node stays, or a
// nested If is kept as a node of the enclosing graph) until folding decides it or
// the graph has settled, then both branches are instantiated and one KilnSelect per
// output joins them (bufferize/branch_guards.h runs each branch only when taken).
// An If over sequences selects between the two lists at once.
#include <stdexcept>

#include "controlflow/compile_time.h"
#include "controlflow/flattener.h"
#include "util/error.h"
#include "util/quoted.h"

namespace kiln::controlflow {

// An If: a condition known now takes its branch; one on run-time data either waits
// (NodeView::keep_node; a node of the graph is simply not lowered yet) or, with
// `undecided_too`, runs both branches.
void Flattener::flatten_if(const NodeView& nv, bool undecided_too) {
  const Node& np = *nv.node;
  const std::string& name = nv.name;
  const std::string who = "If " + in_quotes(name);
  const Graph* then_g = subgraph(np, "then_branch");
  const Graph* else_g = subgraph(np, "else_branch");
  if (!then_g || !else_g || nv.own_inputs != 1) throw CompileError(who + ": malformed If");
  Value* cond = nv.input(0);
  if (!cond || cond->dtype != DType::Bool || (cond->shape_known && cond->num_elements() != 1))
    throw CompileError(who + ": the condition must be a single bool");
  if (then_g->outputs.size() != np.outputs.size() || else_g->outputs.size() != np.outputs.size())
    throw CompileError(who + ": branches and node disagree on the number of outputs");
  std::vector<Value*> outs;
  bool sequences = false;
  for (size_t i = 0; i < np.outputs.size(); ++i) {
    outs.push_back(nv.make_open_output(i));
    sequences |= outs.back()->is_sequence;
  }
  const int known = known_bool(cond);
  if (known >= 0)
    return take_branch(known ? *then_g : *else_g, nv.captured, outs, name + (known ? ".then." : ".else."), who);
  // Sequence outputs keep the early selection (one KilnSelect of the two lists,
  // resolved element-wise by sequence/resolve_sequences.h).
  if (sequences || undecided_too) return select_branches(*then_g, *else_g, nv.captured, cond, outs, name, who);
  // The condition is not known yet: the If stays one node until folding has
  // decided it. The values its branches read are its inputs, so passes see the
  // uses and keep them up to date.
  if (!nv.can_keep()) throw std::logic_error(who + ": an undecided If was taken out of its graph");
  nv.keep_node(outs);
}

// The If's outputs `outs` are the branch's results (through Identity, a view):
// only its shapes count; an output of unknown shape is inferred later.
void Flattener::take_branch(const Graph& branch, const std::map<std::string, Value*>& captured,
                            const std::vector<Value*>& outs, const std::string& prefix, const std::string& who) {
  std::vector<Value*> r = import_body(branch, {}, captured, prefix, who, /*open_outputs=*/true);
  for (size_t i = 0; i < outs.size(); ++i) {
    Value* out = outs[i];
    if (r[i]->is_sequence != out->is_sequence)
      throw CompileError(who + ": output " + std::to_string(i) + " is a sequence in one of branch and node only");
    if (!r[i]->is_sequence) {
      if (r[i]->dtype != out->dtype && out->dtype != DType::Undefined)
        throw CompileError(who + ": output " + std::to_string(i) + " is " + dtype_name(r[i]->dtype) +
                           " in the branch and " + dtype_name(out->dtype) + " in the node");
      out->dtype = r[i]->dtype;
      out->shape_known = r[i]->shape_known;
      out->shape = r[i]->shape_known ? r[i]->shape : Shape{};
    }
    g_.add_node("Identity", g_.unique_name(prefix + "out"), {r[i]}, {out});
  }
}

// Both branches run; one KilnSelect per output copies the one the bool picks.
void Flattener::select_branches(const Graph& then_g, const Graph& else_g,
                                const std::map<std::string, Value*>& captured, Value* cond,
                                const std::vector<Value*>& outs, const std::string& name, const std::string& who) {
  std::vector<Value*> t = import_body(then_g, {}, captured, name + ".then.", who);
  std::vector<Value*> e = import_body(else_g, {}, captured, name + ".else.", who);
  for (size_t i = 0; i < t.size(); ++i) {
    Value* out = outs[i];
    if (t[i]->is_sequence || e[i]->is_sequence || out->is_sequence) {
      // Sequences: one KilnSelect of the two lists, resolved element by element
      // once both are known (sequence/resolve_sequences.cpp); the branches must
      // give lists of one length and element shapes.
      if (!t[i]->is_sequence || !e[i]->is_sequence || !out->is_sequence || t[i]->dtype != e[i]->dtype ||
          t[i]->dtype != out->dtype)
        throw CompileError(who + ": output " + std::to_string(i) +
                           " is not a sequence of one element type in both branches and the node");
      g_.add_node("KilnSelect", g_.unique_name(name + ".select"), {cond, t[i], e[i]}, {out});
      continue;
    }
    if (t[i]->shape != e[i]->shape || t[i]->dtype != e[i]->dtype)
      throw CompileError(who + ": output " + std::to_string(i) + " is " + shape_str(t[i]->shape) +
                         " in then_branch and " + shape_str(e[i]->shape) +
                         " in else_branch; Kiln needs one static type and shape");
    // The node's own type (a dynamic dimension the model declared) gives way to the branches'.
    out->dtype = t[i]->dtype;
    out->shape = t[i]->shape;
    out->shape_known = true;
    g_.add_node("KilnSelect", g_.unique_name(name + ".select"), {cond, t[i], e[i]}, {out});
  }
}

}  // namespace kiln::controlflow
