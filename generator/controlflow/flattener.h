// The control-flow lowering's working object (internal to controlflow/): it turns
// one If / Scan / Loop node, seen through a NodeView, into plain nodes appended to
// the graph `g`. Its parts are one file per job:
//   flattener.cpp     the dispatch per op type and the small node builders
//                     (Reshape, shape and bool constants, lowering notes)
//   body_import.cpp   instantiating a subgraph once (fresh value names, its nested
//                     control flow lowered on the spot or kept as a node)
//   if_lowering.cpp   If: the taken branch, or both branches and KilnSelects
//   scan_unroll.cpp   Scan: one body instance per step of the scanned axis
//   loop_lowering.cpp Loop: reading and checking the node (LoopSpec), the choice
//                     between a C loop and unrolling, and what both forms share
//   loop_region.cpp   Loop as a C loop: why a body cannot be a region, and the
//                     KilnLoopBegin / body / KilnLoopEnd region (ir/loop_region.h)
//   loop_unroll.cpp   Loop unrolled: the number of steps, the steps, the outputs
// control_flow.cpp runs it over the graph (lower_control_flow).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "controlflow/control_flow.h"
#include "controlflow/node_view.h"
#include "ir/graph.h"
#include "util/checked_math.h"

namespace kiln::controlflow {

// A bool known at compile time (known = 0 / 1) or computed at run time (v, a scalar).
struct Cond {
  int known = 1;
  Value* v = nullptr;
  static Cond of(bool b) { return Cond{b ? 1 : 0, nullptr}; }
};

// Upper bound on the nodes one unrolled Loop may add (steps x body nodes), checked
// before unrolling; Graph::add_node enforces the same limit on the whole graph
// (nested loops, several loops).
constexpr int64_t kMaxUnrolledLoopNodes = kMaxGraphNodes;

// A Loop node as read and checked by Flattener::read_loop (loop_lowering.cpp): what
// both the C-loop and the unrolled form start from.
struct LoopSpec {
  std::string who;  // "Loop 'name'", for messages
  const Graph* body = nullptr;
  Value* m = nullptr;     // trip count (null: none)
  Value* cond = nullptr;  // initial condition (null: none)
  std::vector<Value*> state;  // initial loop-carried values
  size_t ncarried = 0;
  size_t nscan = 0;
  std::optional<int64_t> trips;  // M when known at compile time (negative: 0)
  Cond cond0;                    // the initial condition, as far as known
  bool stops_early = false;      // the condition or the body's cond_out may end the loop before M
  // Why a loop-carried value is a sequence ("" when none is): each unrolled step
  // edits the compile-time list, which needs a static number of steps.
  std::string carried_sequence;
};

class Flattener {
 public:
  Flattener(Graph& g, const ControlFlowOptions& o) : g_(g), opt_(o) {}

  // Lowers the node `nv` shows; the new nodes are appended to the graph.
  // `undecided_too`: an If on run-time data, or a Loop whose trip count or
  // condition is not known yet, is lowered as it stands instead of waiting.
  void flatten(const NodeView& nv, bool undecided_too);

  // Instantiates `body` once, its inputs bound to `bound` and the values it reads
  // from enclosing scopes to `captured`; returns its outputs. `open_outputs`: an
  // output whose shape is not known yet is inferred later (a taken If branch); else
  // every output needs a static shape now.
  std::vector<Value*> import_body(const Graph& body, const std::vector<Value*>& bound,
                                  const std::map<std::string, Value*>& captured, const std::string& prefix,
                                  const std::string& who, bool open_outputs = false);

 private:
  class BodyNodeView;  // a control-flow node nested in a body instance (body_import.cpp)

  // ---- flattener.cpp: node builders
  Value* constant_shape(const Shape& s);
  Value* reshape(Value* in, const Shape& s, const std::string& name);
  Value* bool_const(bool b, const Shape& shape);
  void note(const std::string& text);  // a line of Graph::lowering_notes, once
  void keep_loop(const NodeView& nv);

  // ---- body_import.cpp
  Value* make_local(const Value* bv, const std::string& prefix, const std::string& who,
                    std::map<const Value*, Value*>* local);
  void import_node(const Node& b, const std::string& prefix, std::map<const Value*, Value*>& local);
  void infer_with_constants(Node& n);

  // ---- if_lowering.cpp
  void flatten_if(const NodeView& nv, bool undecided_too);
  void take_branch(const Graph& branch, const std::map<std::string, Value*>& captured, const std::vector<Value*>& outs,
                   const std::string& prefix, const std::string& who);
  void select_branches(const Graph& then_g, const Graph& else_g, const std::map<std::string, Value*>& captured,
                       Value* cond, const std::vector<Value*>& outs, const std::string& name, const std::string& who);

  // ---- scan_unroll.cpp
  void flatten_scan(const NodeView& nv);

  // ---- loop_lowering.cpp
  void flatten_loop(const NodeView& nv);
  LoopSpec read_loop(const NodeView& nv);
  Value* loop_output(const NodeView& nv, size_t i, DType dt, const Shape& shape, const std::string& who);
  int64_t declared_scan_length(const NodeView& nv, size_t ncarried, const std::string& why,
                               std::vector<Value*>& scan_outs);
  static std::vector<Shape> loop_body_shapes(const Graph& body, const std::vector<Value*>& state);
  Cond cond_of(Value* v, const std::string& name);
  Cond logic(const char* op, Cond a, Cond b, const std::string& name);
  Cond negate(Cond a, const std::string& name);
  Cond below_trip_count(int64_t t, Value* m, std::optional<int64_t> trips, const std::string& name);

  // ---- loop_region.cpp
  std::string region_refusal(const NodeView& nv, const LoopSpec& loop);
  void region_loop(const NodeView& nv, const LoopSpec& loop);

  // ---- loop_unroll.cpp
  struct UnrollPlan;
  struct UnrolledSteps;
  void unroll_loop(const NodeView& nv, const LoopSpec& loop, const std::string& why);
  UnrollPlan unroll_plan(const NodeView& nv, const LoopSpec& loop);
  UnrolledSteps unroll_steps(const NodeView& nv, const LoopSpec& loop, const UnrollPlan& plan);
  Value* next_state(const LoopSpec& loop, size_t i, Value* prev, Value* next, const Cond& active, bool guarded,
                    const std::string& step);
  void finish_unrolled(const NodeView& nv, const LoopSpec& loop, const UnrollPlan& plan, const UnrolledSteps& run);

  Graph& g_;
  const ControlFlowOptions& opt_;
};

}  // namespace kiln::controlflow
