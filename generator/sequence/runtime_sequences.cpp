#include "sequence/runtime_sequences.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <set>

#include "sequence/sequence_graph.h"
#include "util/error.h"
#include "util/quoted.h"

namespace kiln {

namespace {

using namespace sequence_graph;

// The layout of crt/include/kiln/sequence.h (KILN_SEQ_SLOTS_OFFSET / KILN_SEQ_BYTES).
uint64_t table_bytes(int64_t capacity, int64_t elem_bytes) {
  const uint64_t slots = (4u + 4u * uint64_t(capacity) + 7u) & ~uint64_t(7);
  return slots + uint64_t(capacity) * uint64_t(elem_bytes);
}

Value* position_of(const Node* n) { return n->op_type == "SequenceInsert" ? n->input(2) : n->input(1); }

// Every SequenceInsert on `s` or on a sequence derived from it by Insert / Erase /
// Identity: each needs a slot of its own in the table.
int64_t family_inserts(const Value* s) {
  int64_t k = 0;
  std::set<const Node*> seen;
  std::vector<const Value*> work{s};
  while (!work.empty()) {
    const Value* v = work.back();
    work.pop_back();
    for (const Node* u : v->users) {
      if (u->input(0) != v || !seen.insert(u).second) continue;
      if (!u->domain.empty() && u->domain != "ai.onnx") continue;
      if (u->op_type == "SequenceInsert") ++k;
      if (u->op_type == "SequenceInsert" || u->op_type == "SequenceErase" || u->op_type == "Identity")
        work.push_back(u->outputs.at(0));
    }
  }
  return k;
}

struct Table {
  Value* table = nullptr;  // the uint8 table value holding this sequence
  int64_t count = 0;       // elements (known at compile time)
  int64_t next_slot = 0;   // the slot the next Insert copies its element to
  int64_t capacity = 0;
  DType dtype = DType::Undefined;
  Shape shape;
  int64_t elem_bytes() const { return shape_elements(shape) * int64_t(dtype_size(dtype)); }
};

class RuntimeSequences {
 public:
  explicit RuntimeSequences(Graph& g) : g_(g) {}

  size_t run() {
    for (NodeIt it = g_.nodes.begin(); it != g_.nodes.end(); ++it) {
      Node* n = it->get();
      if (!n->domain.empty() && n->domain != "ai.onnx") continue;
      const std::string op = n->op_type;
      const bool edit = op == "SequenceInsert" || op == "SequenceErase" || op == "SequenceAt";
      if (!edit && op != "Identity" && op != "SequenceLength") continue;
      Value* s = n->input(0);
      if (!s || !s->is_sequence) continue;
      if (!tables_.count(s)) {
        Value* pos = position_of(n);
        if (!edit || !pos || const_int(pos)) continue;
        if (!start(it, s)) continue;
      }
      const Table r = tables_.at(s);
      if (op == "SequenceLength") {
        Value* c = g_.add_value(g_.unique_name(n->name + ".length"), DType::Int64, {});
        c->constant = Constant::from_int64s({}, {r.count});
        retarget(n, "Identity", {c});
      } else if (op == "Identity") {
        retarget(n, "Identity", {r.table});  // a view of the table
        Table t = r;
        t.table = detach_output(n, r);
        tables_[detached_.back().first] = t;
      } else if (op == "SequenceInsert") {
        insert(n, r);
      } else if (op == "SequenceErase") {
        if (r.count == 0) throw CompileError(n->describe() + ": erasing from an empty sequence");
        check_constant_position(n, r.count, false);
        retarget(n, "KilnSeqErase", {r.table, n->input(1)});
        set_attrs(n, r);
        Table t = r;
        t.table = detach_output(n, r);
        t.count = r.count - 1;
        tables_[detached_.back().first] = t;
      } else {  // SequenceAt
        if (r.count == 0) throw CompileError(n->describe() + ": the sequence is empty");
        check_constant_position(n, r.count, false);
        retarget(n, "KilnSeqAt", {r.table, n->input(1)});
        set_attrs(n, r);
        Value* out = n->outputs.at(0);
        out->dtype = r.dtype;
        out->shape = r.shape;
        out->shape_known = true;
      }
      ++rewritten_;
    }
    materialize_remaining_uses();
    g_.remove_dead_nodes();
    g_.remove_dead_values();
    return rewritten_;
  }

 private:
  // Makes `s` (a known list) a table before `it`. False when an element's shape is
  // not known yet (require_sequences_resolved then names the op).
  bool start(NodeIt it, Value* s) {
    Node* n = it->get();
    auto l = list_of(s);
    if (!l) return false;
    Table t;
    const Value* first = !l->empty() ? l->front() : (n->op_type == "SequenceInsert" ? n->input(1) : nullptr);
    if (!first) throw CompileError(n->describe() + ": the sequence is empty");
    for (const Value* e : *l)
      if (!e->shape_known) return false;
    if (!first->shape_known) return false;
    t.dtype = first->dtype;
    t.shape = first->shape;
    for (const Value* e : *l) check_same(n, t, e, "element " + in_quotes(e->name));
    t.count = t.next_slot = int64_t(l->size());
    t.capacity = t.count + family_inserts(s);
    const uint64_t bytes = table_bytes(t.capacity, t.elem_bytes());
    if (bytes > 0xffffffffu)
      throw CompileError(n->describe() + ": the run-time sequence table (" + std::to_string(t.capacity) +
                         " elements of " + std::to_string(t.elem_bytes()) + " bytes) does not fit 32 bits");
    t.table = g_.add_value(g_.unique_name(s->name + ".table"), DType::UInt8, {int64_t(bytes)});
    Node* b = insert_before(g_, it, "KilnSeqBuild", s->name + ".build", *l, {t.table});
    set_attrs(b, t);
    tables_[s] = t;
    ++rewritten_;
    return true;
  }

  // A run-time position may pick any element, so every element has the shape of the first.
  static void check_same(const Node* n, const Table& t, const Value* e, const std::string& what) {
    if (!e->shape_known)
      throw CompileError(n->describe() + ": the shape of " + what + " is not known; a run-time position needs it");
    if (e->dtype != t.dtype || e->shape != t.shape)
      throw CompileError(n->describe() + ": the position is only known at run time and " + what + " is " +
                         dtype_name(e->dtype) + " " + shape_str(e->shape) + " while the sequence holds " +
                         dtype_name(t.dtype) + " " + shape_str(t.shape) +
                         " elements: the result shape would be data dependent");
  }

  static void check_constant_position(const Node* n, int64_t count, bool allow_end) {
    auto c = const_int(position_of(n));
    if (!c) return;
    const int64_t q = *c < 0 ? *c + count : *c;
    if (q < 0 || q > count || (!allow_end && q == count))
      throw CompileError(n->describe() + ": position " + std::to_string(*c) + " is out of range for a sequence of " +
                         std::to_string(count) + " element" + (count == 1 ? "" : "s"));
  }

  static void set_attrs(Node* n, const Table& t) {
    n->attrs["capacity"] = t.capacity;
    n->attrs["elem_bytes"] = t.elem_bytes();
  }

  void insert(Node* n, const Table& r) {
    Value* e = n->input(1);
    if (!e) throw CompileError(n->describe() + ": the tensor to insert is missing");
    check_same(n, r, e, "the inserted tensor");
    check_constant_position(n, r.count, true);
    if (r.next_slot >= r.capacity || r.count >= r.capacity)
      throw CompileError(n->describe() + ": no slot left in the run-time sequence table (internal error)");
    retarget(n, "KilnSeqInsert", {r.table, e, n->input(2)});
    set_attrs(n, r);
    n->attrs["slot"] = r.next_slot;
    Table t = r;
    t.table = detach_output(n, r);
    t.count = r.count + 1;
    t.next_slot = r.next_slot + 1;
    tables_[detached_.back().first] = t;
  }

  // Output 0 of `n` becomes a new table value; the sequence value it produced is
  // left without a producer until materialize_remaining_uses (if it has other uses).
  Value* detach_output(Node* n, const Table& r) {
    Value* old = n->outputs.at(0);
    Value* t = g_.add_value(g_.unique_name(old->name + ".table"), DType::UInt8, r.table->shape);
    n->outputs[0] = t;
    t->producer = n;
    old->producer = nullptr;
    detached_.push_back({old, n});
    return t;
  }

  // A detached sequence still used by another op (ConcatFromSequence, a graph
  // output, SequenceMap, ...) becomes a compile-time list of copies of its elements.
  void materialize_remaining_uses() {
    for (const auto& [v, producer] : detached_) {
      if (v->users.empty() && !v->is_graph_output) continue;
      const Table& t = tables_.at(v);
      NodeIt pos = std::find_if(g_.nodes.begin(), g_.nodes.end(), [p = producer](const auto& x) { return x.get() == p; });
      pos = std::next(pos);
      std::vector<Value*> elems;
      for (int64_t i = 0; i < t.count; ++i)
        elems.push_back(g_.add_value(g_.unique_name(v->name + ".elem" + std::to_string(i)), t.dtype, t.shape));
      if (!elems.empty()) {
        Node* m = insert_before(g_, pos, "KilnSeqMaterialize", v->name + ".materialize", {t.table}, elems);
        set_attrs(m, t);
        insert_before(g_, pos, "SequenceConstruct", v->name + ".list", elems, {v});
      } else {
        Node* c = insert_before(g_, pos, "SequenceEmpty", v->name + ".list", {}, {v});
        c->attrs["dtype"] = int64_t(t.dtype);
      }
      ++rewritten_;
    }
  }

  Graph& g_;
  std::map<const Value*, Table> tables_;
  std::vector<std::pair<Value*, Node*>> detached_;
  size_t rewritten_ = 0;
};

}  // namespace

size_t resolve_runtime_positions(Graph& graph) { return RuntimeSequences(graph).run(); }

}  // namespace kiln
