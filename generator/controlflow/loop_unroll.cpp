// Loop unrolled to a static number of steps (when it cannot be a C loop, see
// loop_region.cpp). Step t is imported with iteration_num = t and cond_in = true (a
// step that runs always starts with a true condition). Whether step t runs at all
// is `active_t`, a bool known at compile time or computed by the schedule:
// active_0 = cond && 0 < M, active_{t+1} = active_t && cond_out_t && t+1 < M. The
// number of steps is
//   - M, when M is a compile-time constant and nothing stops the loop early, or
//     when there are no scan outputs: each loop-carried value after step t is
//     KilnSelect(active_t, body output, previous value), so the state freezes at
//     the step where the loop would have stopped (exact);
//   - else the static length of the scan outputs as the model declares them
//     (their length is the iteration count, so it is only static when the model
//     says so). A KilnGuard on every output checks at run time that the loop runs
//     exactly that many iterations and makes the run fail (KILN_ERR_BAD_ARGUMENT)
//     when it would not, instead of returning outputs of the wrong shape.
#include <algorithm>

#include "controlflow/flattener.h"
#include "util/error.h"
#include "util/quoted.h"

namespace kiln::controlflow {

// How many steps, and whether the run must check that exactly that many run.
struct Flattener::UnrollPlan {
  int64_t steps = 0;
  bool guarded = false;             // a KilnGuard checks the iteration count at run time
  std::vector<Value*> scan_outs;    // scan outputs made with their declared shape (null: not yet)
};

// The unrolled steps' results.
struct Flattener::UnrolledSteps {
  std::vector<Value*> state;                  // the loop-carried values after the last step
  std::vector<std::vector<Value*>> per_step;  // per scan output, each step's row
  Cond exact = Cond::of(true);                // the loop runs exactly `steps` iterations
};

void Flattener::unroll_loop(const NodeView& nv, const LoopSpec& loop, const std::string& why) {
  const UnrollPlan plan = unroll_plan(nv, loop);
  const UnrolledSteps run = unroll_steps(nv, loop, plan);
  finish_unrolled(nv, loop, plan, run);
  note(loop.who + ": unrolled, " + std::to_string(plan.steps) + " step(s) (" + why + ")");
}

Flattener::UnrollPlan Flattener::unroll_plan(const NodeView& nv, const LoopSpec& loop) {
  const std::string& who = loop.who;
  Value* const m = loop.m;
  const std::optional<int64_t>& trips = loop.trips;
  UnrollPlan plan;
  plan.scan_outs.assign(loop.nscan, nullptr);
  if (loop.nscan > 0 && (loop.stops_early || !trips)) {
    const std::string why = !trips ? (m ? "the trip count M (" + in_quotes(m->name) + ") is not a compile-time constant"
                                        : "there is no trip count M")
                                   : "the loop may stop early (its condition is computed at run time)";
    int64_t len = declared_scan_length(nv, loop.ncarried, why, plan.scan_outs);
    if (len < 0) {
      if (!trips)
        throw CompileError(who + ": " + why + " and no scan output of static length bounds the loop; Kiln unrolls "
                           "Loop and needs M to be a constant (an initializer, a Constant or an expression of them)");
    } else {
      if (trips && len > *trips)
        throw CompileError(who + ": the scan outputs are declared with " + std::to_string(len) +
                           " iterations but the trip count is " + std::to_string(*trips));
      plan.steps = len;
      plan.guarded = true;
    }
  }
  if (!plan.guarded) {
    const std::string no_trips = m ? "the trip count M (" + in_quotes(m->name) + ") is not a compile-time constant"
                                   : std::string("there is no trip count M");
    if (!trips && !loop.carried_sequence.empty())
      throw CompileError(who + ": " + loop.carried_sequence + " and " + no_trips +
                         "; Kiln builds sequences at compile time, so a loop that edits one must have a static "
                         "trip count (an initializer, a Constant, an expression of them, or the SequenceLength of "
                         "a sequence of known length)");
    if (!trips)
      throw CompileError(who + ": " + no_trips +
                         "; Kiln unrolls Loop and needs M to be a constant (an initializer, a Constant or an "
                         "expression of them), or scan outputs of static length");
    plan.steps = *trips;
  }
  if (plan.guarded && !loop.carried_sequence.empty())
    throw CompileError(who + ": " + loop.carried_sequence + " and the number of iterations is only checked at run " +
                       "time (a KilnGuard); Kiln builds sequences at compile time and needs a static trip count");
  if (plan.guarded && plan.steps < 1) throw CompileError(who + ": a loop with empty scan outputs is not supported");
  // steps may be anything up to INT64_MAX: compared by division, never multiplied.
  const int body_nodes = int(std::min<size_t>(loop.body->nodes.size(), size_t(kMaxUnrolledLoopNodes)));
  if (plan.steps > kMaxUnrolledLoopNodes / std::max(1, body_nodes))
    throw CompileError(who + ": unrolling " + std::to_string(plan.steps) + " iterations of a " +
                       std::to_string(body_nodes) + "-node body exceeds Kiln's limit of " +
                       std::to_string(kMaxUnrolledLoopNodes) + " nodes");
  return plan;
}

// One body instance per step, each bound to the previous step's state, the state
// frozen by a KilnSelect wherever the loop may have stopped at run time.
Flattener::UnrolledSteps Flattener::unroll_steps(const NodeView& nv, const LoopSpec& loop, const UnrollPlan& plan) {
  const std::string& name = nv.name;
  const std::string& who = loop.who;
  UnrolledSteps run;
  std::vector<Value*>& state = run.state;
  state = loop.state;
  const std::vector<Shape> body_shapes = loop_body_shapes(*loop.body, state);
  for (size_t i = 0; i < loop.ncarried; ++i)
    if (!state[i]->is_sequence) state[i] = reshape(state[i], body_shapes[2 + i], name + ".state_in");

  Cond active = logic("And", loop.cond0, below_trip_count(0, loop.m, loop.trips, name), name);
  run.per_step.resize(loop.nscan);
  Value* cond_in = bool_const(true, body_shapes[1]);
  for (int64_t t = 0; t < plan.steps; ++t) {
    Value* iter = g_.add_value(g_.unique_name(name + ".iteration"), DType::Int64, body_shapes[0]);
    iter->constant = Constant::from_int64s(body_shapes[0], {t});
    std::vector<Value*> bound = {iter, cond_in};
    bound.insert(bound.end(), state.begin(), state.end());
    const std::string step = name + ".step" + std::to_string(t);
    std::vector<Value*> outs = import_body(*loop.body, bound, nv.captured, step + ".", who);
    if (outs[0]->dtype != DType::Bool || outs[0]->num_elements() != 1)
      throw CompileError(who + ": the body's condition output must be a single bool");
    for (size_t i = 0; i < loop.ncarried; ++i)
      state[i] = next_state(loop, i, state[i], outs[1 + i], active, plan.guarded, step);
    for (size_t k = 0; k < loop.nscan; ++k) run.per_step[k].push_back(outs[1 + loop.ncarried + k]);
    const Cond go_on = logic("And", cond_of(outs[0], step), below_trip_count(t + 1, loop.m, loop.trips, step), step);
    if (plan.guarded && t == plan.steps - 1) run.exact = logic("And", active, negate(go_on, step), step);
    active = logic("And", active, go_on, step);
  }
  if (plan.guarded && run.exact.known == 0)
    throw CompileError(who + ": the loop can never run exactly the " + std::to_string(plan.steps) +
                       " iterations its scan outputs declare");
  return run;
}

// Loop-carried value i after a step: the body's `next`, or (when the step may not
// run) KilnSelect(active, next, prev), or `prev` itself when the step never runs.
Value* Flattener::next_state(const LoopSpec& loop, size_t i, Value* prev, Value* next, const Cond& active,
                             bool guarded, const std::string& step) {
  const std::string& who = loop.who;
  if (prev->is_sequence || next->is_sequence) {
    if (!prev->is_sequence || !next->is_sequence || next->dtype != prev->dtype)
      throw CompileError(who + ": loop-carried value " + std::to_string(i) +
                         " is a sequence on one side of the body and not on the other, or changes element type");
    if (!guarded && active.known == -1)
      throw CompileError(who + ": " + loop.carried_sequence + " and the loop may stop early (" +
                         (loop.cond0.known == -1
                              ? "its condition " + in_quotes(loop.cond->name) + " is only known at run time"
                              : std::string("the body's condition output is computed at run time")) +
                         "); keeping the list of the step where it stops would need a run-time choice between "
                         "sequences, which Kiln does not support (sequences are resolved at compile time)");
    return active.known == 1 ? next : prev;  // a step that never runs leaves the list as it was
  }
  if (next->dtype != prev->dtype || next->shape != prev->shape)
    throw CompileError(who + ": loop-carried value " + std::to_string(i) + " changes type from " +
                       shape_str(prev->shape) + " to " + shape_str(next->shape) + "; Kiln needs one static shape");
  if (!guarded && active.known != 1) {
    Value* sel = g_.add_value(g_.unique_name(step + ".carried"), next->dtype, next->shape);
    if (active.known == 0) g_.add_node("Identity", g_.unique_name(step + ".frozen"), {prev}, {sel});
    else g_.add_node("KilnSelect", g_.unique_name(step + ".select"), {active.v, next, prev}, {sel});
    return sel;
  }
  return next;
}

// The node's outputs: the final loop-carried values, and each scan output stacked
// from its rows (Reshape + Concat), through a KilnGuard when the run must check
// the iteration count.
void Flattener::finish_unrolled(const NodeView& nv, const LoopSpec& loop, const UnrollPlan& plan,
                                const UnrolledSteps& run) {
  const Node& np = *nv.node;
  const std::string& name = nv.name;
  const std::string& who = loop.who;
  const size_t ncarried = loop.ncarried;
  auto finish = [&](Value* src, Value* out) {
    if (plan.guarded && run.exact.known != 1) {
      g_.add_node("KilnGuard", g_.unique_name(name + ".guard"), {run.exact.v, src}, {out});
    } else {
      g_.add_node("Identity", g_.unique_name(name + ".final"), {src}, {out});
    }
  };
  for (size_t i = 0; i < ncarried && i < np.outputs.size(); ++i) {
    if (nv.omitted(i)) continue;
    Value* const state = run.state[i];
    Value* out = loop_output(nv, i, state->dtype, nv.input(2 + i)->shape, who);
    if (state->is_sequence != out->is_sequence)
      throw CompileError(who + ": output " + in_quotes(nv.output_name(i)) +
                         " and its loop-carried value disagree on being a sequence");
    if (state->is_sequence) {
      g_.add_node("Identity", g_.unique_name(name + ".final"), {state}, {out});  // resolved as a list
      continue;
    }
    finish(reshape(state, out->shape, name + ".state_out"), out);
  }
  for (size_t k = 0; k < loop.nscan && ncarried + k < np.outputs.size(); ++k) {
    if (nv.omitted(ncarried + k)) continue;
    const std::string nm = nv.output_name(ncarried + k);
    const Value* first = run.per_step[k].empty() ? nullptr : run.per_step[k][0];
    if (!first) throw CompileError(who + ": a loop with empty scan outputs is not supported");
    Shape stacked = first->shape;
    stacked.insert(stacked.begin(), plan.steps);
    Value* out = plan.scan_outs[k] ? plan.scan_outs[k] : loop_output(nv, ncarried + k, first->dtype, stacked, who);
    if (out->dtype != first->dtype || out->shape != stacked)
      throw CompileError(who + ": scan output " + in_quotes(nm) + " is declared " + shape_str(out->shape) +
                         " but the unrolled loop computes " + shape_str(stacked));
    Shape piece = first->shape;
    piece.insert(piece.begin(), 1);
    std::vector<Value*> parts;
    for (Value* v : run.per_step[k]) parts.push_back(reshape(v, piece, name + ".piece"));
    Value* dst = out;
    if (plan.guarded && run.exact.known != 1)
      dst = g_.add_value(g_.unique_name(name + ".stacked"), out->dtype, out->shape);
    Node* c = g_.add_node("Concat", g_.unique_name(name + ".stack"), parts, {dst});
    c->attrs["axis"] = int64_t(0);
    if (dst != out) finish(dst, out);
  }
}

}  // namespace kiln::controlflow
