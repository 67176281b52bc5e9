// Loop as a C loop (ir/loop_region.h): KilnLoopBegin, the body instantiated once,
// KilnLoopEnd; the emitter writes a C `for` around the body and the planner plans
// its buffers once. region_refusal says why a Loop must be unrolled instead: it
// carries or returns a sequence, its body holds sequence ops, it runs at most once,
// or (found by instantiating the body once on the side with iteration_num, cond_in
// and the carried values unknown) a value computed from them has no static shape
// or no run-time form (ControlFlowOptions::runtime_refusal).
#include <algorithm>
#include <set>

#include "controlflow/flattener.h"
#include "ir/loop_region.h"
#include "util/error.h"
#include "util/quoted.h"

namespace kiln::controlflow {

// Why a Loop is unrolled instead of becoming a region ("": a region). The body is
// instantiated once on the side, in a scratch graph, with iteration_num, cond_in
// and the loop-carried values unknown (run-time values): every value computed from
// them must then have a static shape, keep the loop-carried types, and have a
// run-time form (ControlFlowOptions::runtime_refusal). A body whose shapes or
// kernels need the iteration number as a compile-time constant is unrolled, where
// each step folds with its own constant.
std::string Flattener::region_refusal(const NodeView& nv, const LoopSpec& loop) {
  const Graph& body = *loop.body;
  const std::vector<Value*>& state = loop.state;
  const std::optional<int64_t>& trips = loop.trips;
  if (opt_.unroll_loops) return "unrolling requested";
  if (!loop.carried_sequence.empty()) return "it carries a sequence, which Kiln builds at compile time";
  for (size_t i = 0; i < nv.node->outputs.size(); ++i)
    if (!nv.omitted(i) && nv.node->outputs[i]->is_sequence) return "it returns a sequence";
  if (trips && *trips <= 1) return "it runs at most once";
  for (const auto& bn : body.nodes)
    if (bn->op_type == "SequenceMap" || bn->op_type.rfind("Sequence", 0) == 0 ||
        bn->op_type == "SplitToSequence" || bn->op_type == "ConcatFromSequence")
      return "its body holds " + bn->describe() + ", which Kiln resolves at compile time";
  for (const auto& v : body.values())
    if (v->is_sequence) return "its body uses a sequence";
  if (trips && *trips > kMaxLoopIterations) return "";  // region_loop refuses it, naming the limit
  const std::vector<Shape> shapes = loop_body_shapes(body, state);
  Graph trial;
  trial.opset = g_.opset;  // the nodes' opset (Graph::add_node), which shape inference needs
  Flattener t(trial, opt_);
  std::vector<Value*> bound;
  bound.push_back(trial.add_value("iteration_num", DType::Int64, shapes[0]));
  bound.push_back(trial.add_value("cond_in", DType::Bool, shapes[1]));
  for (size_t i = 0; i < state.size(); ++i)
    bound.push_back(trial.add_value("state" + std::to_string(i), state[i]->dtype, shapes[2 + i]));
  std::map<std::string, Value*> captured;
  for (const auto& [nm, v] : nv.captured) {
    if (!v) continue;
    Value* c = trial.add_value(trial.unique_name("captured"), v->dtype, v->shape);
    c->shape_known = v->shape_known;
    c->is_sequence = v->is_sequence;
    c->constant = v->constant;
    captured[nm] = c;
  }
  std::vector<Value*> outs;
  try {
    outs = t.import_body(body, bound, captured, "", "Loop " + in_quotes(nv.name));
  } catch (const CompileError& e) {
    return std::string("the body cannot be instantiated once for all iterations: ") + e.what();
  }
  if (outs.size() < 1 + state.size()) return "the body returns too few values";
  for (size_t i = 0; i < state.size(); ++i)
    if (outs[1 + i]->dtype != state[i]->dtype || outs[1 + i]->shape != shapes[2 + i] || !outs[1 + i]->shape_known)
      return "loop-carried value " + std::to_string(i) + " changes type or shape across iterations";
  std::set<const Value*> dependent(bound.begin(), bound.end());
  for (const auto& n : trial.nodes) {
    if (std::none_of(n->inputs.begin(), n->inputs.end(), [&](const Value* v) { return v && dependent.count(v); }))
      continue;
    for (const Value* o : n->outputs) {
      if (o->dtype == DType::Undefined && o->users.empty()) continue;  // an omitted output
      dependent.insert(o);
      if (!o->shape_known || o->is_sequence)
        return "the shape of " + in_quotes(o->name) + " (" + n->describe() +
               ") depends on the iteration number, the condition or a loop-carried value";
    }
    if (opt_.runtime_refusal && !is_control_flow(*n))  // nested control flow: lowered in place later
      if (std::string why = opt_.runtime_refusal(*n); !why.empty())
        return n->describe() + " has no run-time form for values computed in the loop (" + why + ")";
  }
  return "";
}

// The Loop as a region: KilnLoopBegin, the body once, KilnLoopEnd (ir/loop_region.h).
// The scan outputs hold one row per iteration: their number of rows is M when M
// is a compile-time constant and the loop never stops early, else the static
// length the model declares for them, which the run then checks (as the unrolled
// form's KilnGuard does).
void Flattener::region_loop(const NodeView& nv, const LoopSpec& loop) {
  const Node& np = *nv.node;
  const std::string& name = nv.name;
  const std::string& who = loop.who;
  const Graph& body = *loop.body;
  Value* const m = loop.m;
  Value* const cond = loop.cond;
  std::vector<Value*> state = loop.state;
  const std::optional<int64_t>& trips = loop.trips;
  const bool stops_early = loop.stops_early;
  const size_t ncarried = state.size();
  const size_t nscan = body.outputs.size() - 1 - ncarried;
  if (trips && *trips > kMaxLoopIterations)
    throw CompileError(who + ": the trip count " + std::to_string(*trips) + " exceeds Kiln's limit of " +
                       std::to_string(kMaxLoopIterations) + " iterations per run");
  int64_t len = -1;
  bool check_length = false;
  std::vector<Value*> scan_outs(nscan, nullptr);
  if (nscan > 0 && !stops_early && trips) {
    len = *trips;
  } else if (nscan > 0) {
    const std::string why = !trips ? (m ? "the trip count M (" + in_quotes(m->name) + ") is only known at run time"
                                        : "there is no trip count M")
                                   : "the loop may stop early (its condition is computed at run time)";
    len = declared_scan_length(nv, ncarried, why, scan_outs);
    if (len >= 0) {
      if (trips && len > *trips)
        throw CompileError(who + ": the scan outputs are declared with " + std::to_string(len) +
                           " iterations but the trip count is " + std::to_string(*trips));
      check_length = true;
    }
  }
  const std::vector<Shape> shapes = loop_body_shapes(body, state);
  for (size_t i = 0; i < ncarried; ++i) state[i] = reshape(state[i], shapes[2 + i], name + ".state_in");
  Value* iter = g_.add_value(g_.unique_name(name + ".iteration"), DType::Int64, shapes[0]);
  Value* cond_in = g_.add_value(g_.unique_name(name + ".cond_in"), DType::Bool, shapes[1]);
  std::vector<Value*> carried;
  for (size_t i = 0; i < ncarried; ++i)
    carried.push_back(g_.add_value(g_.unique_name(name + ".state"), state[i]->dtype, shapes[2 + i]));
  std::vector<Value*> begin_in = {m, cond};
  begin_in.insert(begin_in.end(), state.begin(), state.end());
  std::vector<Value*> bound = {iter, cond_in};
  bound.insert(bound.end(), carried.begin(), carried.end());
  g_.add_node(kLoopBeginOp, g_.unique_name(name + ".begin"), begin_in, bound);
  const size_t first_body_node = g_.nodes.size();
  std::vector<Value*> outs = import_body(body, bound, nv.captured, name + ".body.", who);
  const size_t body_nodes = g_.nodes.size() - first_body_node;
  if (outs[0]->dtype != DType::Bool || outs[0]->num_elements() != 1)
    throw CompileError(who + ": the body's condition output must be a single bool");
  for (size_t i = 0; i < ncarried; ++i)
    if (outs[1 + i]->dtype != carried[i]->dtype || outs[1 + i]->shape != carried[i]->shape)
      throw CompileError(who + ": loop-carried value " + std::to_string(i) + " changes type from " +
                         shape_str(carried[i]->shape) + " to " + shape_str(outs[1 + i]->shape) +
                         "; Kiln needs one static shape");
  std::vector<Value*> end_in = bound;
  end_in.insert(end_in.end(), outs.begin(), outs.end());
  std::vector<Value*> end_out;
  std::vector<std::pair<Value*, Value*>> reshaped;  // End's final value -> the node's output
  for (size_t i = 0; i < ncarried; ++i) {
    if (i >= np.outputs.size() || nv.omitted(i)) {
      end_out.push_back(g_.add_value(g_.unique_name(name + "_unused"), DType::Undefined, {}));
      continue;
    }
    Value* out = loop_output(nv, i, carried[i]->dtype, nv.input(2 + i)->shape, who);
    if (out->shape == carried[i]->shape) {
      end_out.push_back(out);
      continue;
    }
    Value* fin = g_.add_value(g_.unique_name(name + ".final"), carried[i]->dtype, carried[i]->shape);
    end_out.push_back(fin);
    reshaped.push_back({fin, out});
  }
  for (size_t k = 0; k < nscan; ++k) {
    const size_t o = ncarried + k;
    const Value* row = outs[1 + ncarried + k];
    if (o >= np.outputs.size() || nv.omitted(o) || len < 0) {
      if (o < np.outputs.size() && !nv.omitted(o))
        throw CompileError(who + ": scan output " + in_quotes(nv.output_name(o)) + " has no static number of rows");
      end_out.push_back(g_.add_value(g_.unique_name(name + "_unused"), DType::Undefined, {}));
      continue;
    }
    Shape stacked = row->shape;
    stacked.insert(stacked.begin(), len);
    Value* out = scan_outs[k] ? scan_outs[k] : loop_output(nv, o, row->dtype, stacked, who);
    if (out->dtype != row->dtype || out->shape != stacked)
      throw CompileError(who + ": scan output " + in_quotes(nv.output_name(o)) + " is declared " + shape_str(out->shape) +
                         " but the loop computes " + shape_str(stacked));
    end_out.push_back(out);
  }
  Node* end = g_.add_node(kLoopEndOp, g_.unique_name(name + ".end"), end_in, end_out);
  end->attrs["carried"] = int64_t(ncarried);
  end->attrs["scan_length"] = len;
  end->attrs["check_length"] = int64_t(check_length ? 1 : 0);
  for (const auto& [fin, out] : reshaped)
    g_.add_node("Reshape", g_.unique_name(name + ".final"), {fin, constant_shape(out->shape)}, {out});
  note(who + ": a C loop, its body (" + std::to_string(body_nodes) + " nodes) planned once" +
       (trips ? ", " + std::to_string(*trips) + " iterations at most" : ", trip count decided at run time") +
       (stops_early ? ", may stop early" : ""));
}

}  // namespace kiln::controlflow
