#include "sequence/resolve_sequences.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <optional>

#include "sequence/sequence_graph.h"
#include "util/error.h"
#include "util/quoted.h"

namespace kiln {

namespace {

using namespace sequence_graph;

Value* constant_value(Graph& g, const std::string& hint, ConstantPtr c) {
  Value* v = g.add_value(g.unique_name(hint), c->dtype(), c->shape());
  v->constant = std::move(c);
  return v;
}

Value* reshape_before(Graph& g, NodeIt pos, Value* in, const Shape& s, const std::string& hint) {
  if (in->shape == s) return in;
  Value* out = g.add_value(g.unique_name(hint), in->dtype, s);
  Value* shp = constant_value(g, hint + ".shape", Constant::from_int64s({int64_t(s.size())}, s));
  insert_before(g, pos, "Reshape", hint, {in, shp}, {out});
  return out;
}

// Position `p` of a sequence of `n` elements, negative counting from the back;
// valid in [0, n) (or [0, n] when `allow_end`, for SequenceInsert).
int64_t normalize_position(int64_t p, int64_t n, bool allow_end, const Node* node) {
  const int64_t q = p < 0 ? p + n : p;
  if (q < 0 || q > n || (!allow_end && q == n))
    throw CompileError(node->describe() + ": position " + std::to_string(p) + " is out of range for a sequence of " +
                       std::to_string(n) + " element" + (n == 1 ? "" : "s"));
  return q;
}

// Imports one instance of a SequenceMap body (an IR subgraph, onnx/graph_conversion.h)
// before `pos`, its inputs bound to `bound` and the outer values it reads to
// `captured` (by name). Intermediate values keep the types ONNX's inference gave the
// body where they are static, else start with an unknown shape (a body's shapes may
// be symbolic, differing per element); the driver's shape inference settles them.
std::vector<Value*> unroll_body(Graph& g, NodeIt pos, const Graph& body, const std::vector<Value*>& bound,
                                const std::map<std::string, Value*>& captured, const std::string& prefix,
                                const std::string& who) {
  if (body.inputs.size() != bound.size())
    throw CompileError(who + ": the body takes " + std::to_string(body.inputs.size()) + " inputs; the node gives " +
                       std::to_string(bound.size()));
  std::map<const Value*, Value*> local;
  for (size_t i = 0; i < body.inputs.size(); ++i) local[body.inputs[i]] = bound[i];
  for (const Value* c : body.captures) {
    auto it = captured.find(c->name);
    if (it == captured.end()) throw CompileError(who + ": the body reads " + in_quotes(c->name) + ", which the node does not pass");
    local[c] = it->second;
  }
  for (const auto& v : body.values())  // initializers
    if (v->constant && !v->producer) local[v.get()] = constant_value(g, prefix + v->name, v->constant);
  for (const auto& bn : body.nodes) {
    const Node& np = *bn;
    const std::string name = prefix + np.name;
    const std::string nwho = np.op_type + " " + in_quotes(name);
    if (!np.domain.empty() && np.domain != "ai.onnx")
      throw CompileError(nwho + ": operator domain " + in_quotes(np.domain) + " is not supported");
    if (np.op_type == "Constant") {
      local[np.outputs[0]] = constant_value(g, prefix + np.outputs[0]->name, np.attr_tensor("value"));
      continue;
    }
    for (const auto& [k, a] : np.attrs)
      if (std::holds_alternative<GraphPtr>(a))
        throw CompileError(nwho + ": attribute " + in_quotes(k) + " of type GRAPH is not supported inside a SequenceMap body");
    std::vector<Value*> ins;
    for (const Value* in : np.inputs) ins.push_back(in ? local.at(in) : nullptr);
    std::vector<Value*> outs;
    for (const Value* out : np.outputs) {
      Value* v = g.add_value(g.unique_name(prefix + out->name), out->dtype, {});
      v->shape_known = false;
      v->is_sequence = out->is_sequence;
      if (out->shape_known && !out->is_sequence && out->dtype != DType::Undefined) {
        v->shape = out->shape;
        v->shape_known = true;
      }
      local[out] = v;
      outs.push_back(v);
    }
    Node* n = insert_before(g, pos, np.op_type, name, ins, outs);
    n->attrs = np.attrs;
  }
  std::vector<Value*> outs;
  for (const Value* o : body.outputs) {
    auto it = local.find(o);
    if (it == local.end()) throw CompileError(who + ": body output " + in_quotes(o->name) + " is not produced");
    if (it->second->is_sequence) throw CompileError(who + ": a body output that is a sequence is not supported");
    outs.push_back(it->second);
  }
  return outs;
}

// Makes `n` the canonical producer of its sequence output from `list`.
void make_list(Node* n, const std::vector<Value*>& list) {
  const DType dt = n->outputs[0]->dtype;
  retarget(n, list.empty() ? "SequenceEmpty" : "SequenceConstruct", list);
  if (list.empty()) n->attrs["dtype"] = int64_t(dt);
}

class Resolver {
 public:
  explicit Resolver(Graph& g) : g_(g) {}

  size_t run() {
    for (NodeIt it = g_.nodes.begin(); it != g_.nodes.end();) {
      Node* n = it->get();
      NodeIt next = std::next(it);
      if (n->domain.empty() || n->domain == "ai.onnx") {
        if (n->op_type == "SequenceMap") {
          NodeIt first = unroll_map(it);
          if (first != it) {  // unrolled: n is gone; process the new nodes
            it = first;
            continue;
          }
        } else {
          resolve(it);
        }
      }
      it = next;
    }
    expand_graph_outputs();
    g_.remove_dead_nodes();
    g_.remove_dead_values();
    return rewritten_;
  }

 private:
  void resolve(NodeIt it) {
    Node* n = it->get();
    const std::string& op = n->op_type;
    if (op == "SequenceInsert") {
      auto l = list_of(n->input(0));
      if (!l) return;
      std::vector<Value*> list = *l;
      int64_t p = int64_t(list.size());
      if (n->input(2)) {
        auto c = const_int(n->input(2));
        if (!c) return;
        p = normalize_position(*c, int64_t(list.size()), true, n);
      }
      list.insert(list.begin() + p, n->input(1));
      make_list(n, list);
      ++rewritten_;
    } else if (op == "SequenceErase") {
      auto l = list_of(n->input(0));
      if (!l) return;
      std::vector<Value*> list = *l;
      int64_t p = -1;
      if (n->input(1)) {
        auto c = const_int(n->input(1));
        if (!c) return;
        p = *c;
      }
      if (list.empty()) throw CompileError(n->describe() + ": erasing from an empty sequence");
      list.erase(list.begin() + normalize_position(p, int64_t(list.size()), false, n));
      make_list(n, list);
      ++rewritten_;
    } else if (op == "Identity" && n->input(0) && n->input(0)->is_sequence) {
      auto l = list_of(n->input(0));
      if (!l) return;
      make_list(n, *l);
      ++rewritten_;
    } else if (op == "SequenceAt") {
      auto l = list_of(n->input(0));
      auto c = const_int(n->input(1));
      if (!l || !c) return;
      Value* e = (*l)[size_t(normalize_position(*c, int64_t(l->size()), false, n))];
      retarget(n, "Identity", {e});  // a view of the element
      ++rewritten_;
    } else if (op == "SequenceLength") {
      auto l = list_of(n->input(0));
      if (!l) return;
      Value* c = constant_value(g_, n->name + ".length", Constant::from_int64s({}, {int64_t(l->size())}));
      retarget(n, "Identity", {c});
      ++rewritten_;
    } else if (op == "ConcatFromSequence") {
      resolve_concat(it);
    } else if (op == "SplitToSequence") {
      resolve_split(it);
    } else if (op == "KilnSelect" && n->input(1) && n->input(1)->is_sequence) {
      resolve_select(it);
    }
  }

  // KilnSelect(cond, a, b) of two sequences (an If whose branches return
  // sequences, controlflow/if_lowering.cpp) -> one KilnSelect per element, the node
  // becoming the SequenceConstruct of the selected elements. Both lists must have
  // the same length and element shapes (known at compile time); waits until they
  // are resolved.
  void resolve_select(NodeIt it) {
    Node* n = it->get();
    Value* cond = n->input(0);
    auto a = list_of(n->input(1));
    auto b = list_of(n->input(2));
    if (!cond || !a || !b || cond->is_sequence) return;
    if (a->size() != b->size())
      throw CompileError(n->describe() + ": the two branches give sequences of " + std::to_string(a->size()) + " and " +
                         std::to_string(b->size()) + " elements; Kiln resolves sequences at compile time and needs " +
                         "one length whichever branch runs");
    for (size_t i = 0; i < a->size(); ++i)
      if (!(*a)[i]->shape_known || !(*b)[i]->shape_known) return;
    std::vector<Value*> elems;
    for (size_t i = 0; i < a->size(); ++i) {
      Value* x = (*a)[i];
      Value* y = (*b)[i];
      if (x->dtype != y->dtype || x->shape != y->shape)
        throw CompileError(n->describe() + ": element " + std::to_string(i) + " is " + dtype_name(x->dtype) + " " +
                           shape_str(x->shape) + " in one branch and " + dtype_name(y->dtype) + " " +
                           shape_str(y->shape) + " in the other; Kiln needs one static type and shape");
      Value* e = g_.add_value(g_.unique_name(n->outputs[0]->name + ".elem" + std::to_string(i)), x->dtype, x->shape);
      insert_before(g_, it, "KilnSelect", n->name + ".elem" + std::to_string(i), {cond, x, y}, {e});
      elems.push_back(e);
    }
    make_list(n, elems);
    ++rewritten_;
  }

  void resolve_concat(NodeIt it) {
    Node* n = it->get();
    auto l = list_of(n->input(0));
    if (!l) return;
    for (Value* e : *l)
      if (!e->shape_known) return;
    if (l->empty()) throw CompileError(n->describe() + ": the sequence is empty (ONNX needs at least one element)");
    if (!n->has_attr("axis")) throw CompileError(n->describe() + ": attribute 'axis' is required");
    int64_t axis = n->attr_int("axis", 0);
    const bool new_axis = n->attr_int("new_axis", 0) != 0;
    const int64_t r = int64_t((*l)[0]->shape.size());
    const int64_t lo = new_axis ? -r - 1 : -r, hi = new_axis ? r : r - 1;
    if (axis < lo || axis > hi)
      throw CompileError(n->describe() + ": axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(r));
    // Every element must have element 0's rank before the axis indexes its shape
    // (a rank-0 value_info on a later element was a SEGV in the unsqueeze below).
    for (size_t i = 1; i < l->size(); ++i)
      if (int64_t((*l)[i]->shape.size()) != r)
        throw CompileError(n->describe() + ": element " + std::to_string(i) + " has rank " +
                           std::to_string((*l)[i]->shape.size()) + " but element 0 has rank " + std::to_string(r) +
                           "; the elements of a concatenated sequence share one rank");
    if (axis < 0) axis += new_axis ? r + 1 : r;
    std::vector<Value*> parts;
    for (Value* e : *l) {
      if (!new_axis) {
        parts.push_back(e);
        continue;
      }
      Shape s = e->shape;
      s.insert(s.begin() + axis, 1);
      parts.push_back(reshape_before(g_, it, e, s, n->name + ".unsqueeze"));
    }
    retarget(n, "Concat", parts);
    n->attrs["axis"] = axis;
    ++rewritten_;
  }

  void resolve_split(NodeIt it) {
    Node* n = it->get();
    Value* x = n->input(0);
    Value* split = n->input(1);
    if (!x || !x->shape_known) return;
    const int64_t r = int64_t(x->shape.size());
    int64_t axis = n->attr_int("axis", 0);
    if (axis < -r || axis >= r)
      throw CompileError(n->describe() + ": axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(r));
    if (axis < 0) axis += r;
    const int64_t dim = x->shape[size_t(axis)];
    bool keepdims = true;
    std::vector<int64_t> sizes;
    Value* runtime_split = nullptr;
    if (!split) {
      sizes.assign(size_t(dim), 1);
      keepdims = n->attr_int("keepdims", 1) != 0;
    } else if (split->is_constant()) {
      if (split->shape.empty()) {
        const int64_t k = split->constant->as_int64(0);
        if (k <= 0) throw CompileError(n->describe() + ": split must be positive");
        for (int64_t at = 0; at < dim; at += k) sizes.push_back(std::min(k, dim - at));
      } else {
        sizes = split->constant->to_int64s();
        int64_t sum = 0;
        for (auto s : sizes) {
          if (s < 0) throw CompileError(n->describe() + ": split sizes must not be negative");
          sum += s;
        }
        if (sum != dim)
          throw CompileError(n->describe() + ": split sizes add up to " + std::to_string(sum) + ", not the axis length " +
                             std::to_string(dim));
      }
    } else if (split->shape_known && split->shape.size() == 1) {
      // Sizes only known at run time, but the count is: the elements get no static
      // shape; using one fails later naming the Split (SequenceLength still works).
      sizes.assign(size_t(split->shape[0]), -1);
      runtime_split = split;
    } else {
      return;  // a scalar split of unknown value: the count is unknown
    }
    std::vector<Value*> parts, elems;
    for (size_t i = 0; i < sizes.size(); ++i) {
      Shape s = x->shape;
      s[size_t(axis)] = sizes[i];
      Value* p = g_.add_value(g_.unique_name(n->name + ".part"), x->dtype, s);
      if (sizes[i] < 0) {
        p->shape.clear();
        p->shape_known = false;
      }
      parts.push_back(p);
    }
    if (!parts.empty()) {
      Node* s = nullptr;
      if (runtime_split) {
        s = insert_before(g_, it, "Split", n->name + ".split", {x, runtime_split}, parts);
        s->opset = std::max<int64_t>(s->opset, 13);  // the input form of `split`
      } else if (g_.opset >= 13) {
        Value* sv = constant_value(g_, n->name + ".sizes", Constant::from_int64s({int64_t(sizes.size())}, sizes));
        s = insert_before(g_, it, "Split", n->name + ".split", {x, sv}, parts);
      } else {
        s = insert_before(g_, it, "Split", n->name + ".split", {x}, parts);
        s->attrs["split"] = sizes;
      }
      s->attrs["axis"] = axis;
    }
    for (Value* p : parts) {
      if (keepdims) {
        elems.push_back(p);
        continue;
      }
      Shape s = p->shape;
      s.erase(s.begin() + axis);
      elems.push_back(reshape_before(g_, it, p, s, n->name + ".squeeze"));
    }
    make_list(n, elems);
    ++rewritten_;
  }

  // Unrolls a SequenceMap whose sequence inputs are all resolved: one body instance
  // per element, then one SequenceConstruct per output. Returns the iterator of the
  // first new node, or `it` when it could not be unrolled yet.
  NodeIt unroll_map(NodeIt it) {
    Node* n = it->get();
    const std::string who = n->describe();
    std::optional<size_t> count;
    std::vector<std::optional<std::vector<Value*>>> lists;
    const size_t own = n->own_input_count();
    for (size_t k = 0; k < own; ++k) {
      Value* v = n->inputs[k];
      if (!v) throw CompileError(who + ": an omitted input is not supported");
      if (!v->is_sequence) {
        lists.push_back(std::nullopt);
        continue;
      }
      auto l = list_of(v);
      if (!l) return it;
      if (count && *count != l->size())
        throw CompileError(who + ": the input sequences have different lengths (" + std::to_string(*count) + " and " +
                           std::to_string(l->size()) + ")");
      count = l->size();
      lists.push_back(l);
    }
    if (!count) throw CompileError(who + ": the first input must be a sequence");
    const Graph* body = n->has_attr("body") ? n->attr_graph("body") : nullptr;
    if (!body) throw CompileError(who + ": attribute 'body' is missing");
    if (body->outputs.size() != n->outputs.size())
      throw CompileError(who + ": the body has " + std::to_string(body->outputs.size()) + " outputs; the node has " +
                         std::to_string(n->outputs.size()));
    std::map<std::string, Value*> captured;
    const std::vector<std::string> names = n->has_attr("captured") ? std::get<std::vector<std::string>>(n->attrs.at("captured"))
                                                                   : std::vector<std::string>{};
    for (size_t j = 0; j < names.size(); ++j) captured[names[j]] = n->inputs[own + j];
    const size_t before = g_.nodes.size();
    std::vector<std::vector<Value*>> out_lists(n->outputs.size());
    for (size_t i = 0; i < *count; ++i) {
      std::vector<Value*> bound;
      for (size_t k = 0; k < own; ++k) bound.push_back(lists[k] ? (*lists[k])[i] : n->inputs[k]);
      auto outs = unroll_body(g_, it, *body, bound, captured, n->name + ".elem" + std::to_string(i) + ".", who);
      for (size_t j = 0; j < outs.size(); ++j) out_lists[j].push_back(outs[j]);
    }
    std::vector<Value*> outputs = n->outputs;
    retarget(n, "SequenceMap", {});  // detach from its inputs
    n->outputs.clear();
    for (size_t j = 0; j < outputs.size(); ++j) {
      Node* c = insert_before(g_, it, out_lists[j].empty() ? "SequenceEmpty" : "SequenceConstruct",
                              n->name + ".list", out_lists[j], {outputs[j]});
      if (out_lists[j].empty()) c->attrs["dtype"] = int64_t(outputs[j]->dtype);
    }
    NodeIt first = it;
    std::advance(first, -std::ptrdiff_t(g_.nodes.size() - before));
    g_.nodes.erase(it);
    ++rewritten_;
    return first;
  }

  // Sequence graph outputs whose list is known become tensor outputs <name>_i.
  void expand_graph_outputs() {
    for (size_t idx = 0; idx < g_.outputs.size(); ++idx) {
      Value* s = g_.outputs[idx];
      if (!s->is_sequence) continue;
      auto l = list_of(s);
      if (!l) continue;
      bool known = true;
      for (Value* e : *l) known &= e->shape_known;
      if (!known) continue;
      size_t position = idx;  // among the ONNX graph's outputs: earlier sequences count once
      for (const auto& si : g_.sequence_io)
        if (!si.is_input && si.first < idx) position = position - si.count + 1;
      std::vector<Value*> outs;
      for (size_t i = 0; i < l->size(); ++i) {
        const std::string nm = s->name + "_" + std::to_string(i);
        if (g_.find_value(nm))
          throw CompileError("graph output " + in_quotes(s->name) + ": element name " + in_quotes(nm) + " is already used in the model");
        Value* o = g_.add_value(nm, (*l)[i]->dtype, (*l)[i]->shape);
        o->is_graph_output = true;
        g_.add_node("Identity", g_.unique_name(s->name + ".element"), {(*l)[i]}, {o});
        outs.push_back(o);
      }
      SequenceInterface si;
      si.name = s->name;
      si.is_input = false;
      si.position = position;
      si.first = idx;
      si.count = outs.size();
      g_.sequence_io.push_back(si);
      s->is_graph_output = false;
      g_.outputs.erase(g_.outputs.begin() + std::ptrdiff_t(idx));
      g_.outputs.insert(g_.outputs.begin() + std::ptrdiff_t(idx), outs.begin(), outs.end());
      idx += outs.size();
      --idx;
      ++rewritten_;
    }
  }

  Graph& g_;
  size_t rewritten_ = 0;
};

}  // namespace

size_t resolve_sequences(Graph& graph) { return Resolver(graph).run(); }

void require_sequences_resolved(const Graph& graph) {
  // The op that is stuck, not the list producer feeding it, is named first.
  for (int pass = 0; pass < 2; ++pass)
  for (const auto& n : graph.nodes) {
    if (pass == 0 && is_list_producer(n.get())) continue;
    bool seq = false;
    for (const Value* v : n->inputs) seq |= v && v->is_sequence;
    for (const Value* v : n->outputs) seq |= v->is_sequence;
    if (!seq) continue;
    const std::string& op = n->op_type;
    std::string why;
    if (op == "SequenceAt" || op == "SequenceInsert" || op == "SequenceErase")
      why = "the position is only known at run time";
    else if (op == "SplitToSequence")
      why = "the number of pieces is only known at run time";
    else if (op == "SequenceConstruct" || op == "SequenceEmpty" || op == "SequenceLength" ||
             op == "ConcatFromSequence" || op == "SequenceMap" || op == "Identity")
      why = "the sequence's length or an element's shape is only known at run time";
    else
      why = "this operator does not support sequence operands";
    throw CompileError(n->describe() + ": " + why +
                       "; Kiln resolves sequences at compile time (a run-time position needs a sequence whose length and " +
                       "element shapes are known)");
  }
  for (const Value* v : graph.outputs)
    if (v->is_sequence)
      throw CompileError("graph output " + in_quotes(v->name) + ": the sequence's length is only known at run time");
}

}  // namespace kiln
