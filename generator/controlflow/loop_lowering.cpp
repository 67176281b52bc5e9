// Loop lowering, the part both forms share: the node read and checked (LoopSpec),
// the choice between a C loop (loop_region.cpp) and unrolling (loop_unroll.cpp),
// the node's outputs typed as the lowering computes them, the length the model
// declares for the scan outputs, and the bool conditions (Cond) a loop's
// "still running" is computed from.
#include <algorithm>
#include <deque>

#include "controlflow/compile_time.h"
#include "controlflow/flattener.h"
#include "util/error.h"
#include "util/quoted.h"

namespace kiln::controlflow {

void Flattener::flatten_loop(const NodeView& nv) {
  const LoopSpec loop = read_loop(nv);
  // A C loop whose body is planned once, unless the body needs to be unrolled.
  const std::string unroll_why = region_refusal(nv, loop);
  if (unroll_why.empty()) return region_loop(nv, loop);
  unroll_loop(nv, loop, unroll_why);
}

LoopSpec Flattener::read_loop(const NodeView& nv) {
  const Node& np = *nv.node;
  LoopSpec loop;
  const std::string& who = loop.who = "Loop " + in_quotes(nv.name);
  const Graph* body = loop.body = subgraph(np, "body");
  if (!body || nv.own_inputs < 2) throw CompileError(who + ": malformed Loop");
  const size_t ncarried = loop.ncarried = nv.own_inputs - 2;
  if (body->inputs.size() != 2 + ncarried || body->outputs.size() < 1 + ncarried)
    throw CompileError(who + ": the body's inputs and outputs do not match the node's loop-carried values");
  loop.nscan = body->outputs.size() - 1 - ncarried;
  if (np.outputs.size() > ncarried + loop.nscan) throw CompileError(who + ": more outputs than the body computes");

  Value* m = loop.m = nv.input(0);         // trip count
  Value* cond = loop.cond = nv.input(1);   // condition
  if (m && (m->dtype != DType::Int64 || !m->shape_known || m->num_elements() != 1))
    throw CompileError(who + ": the trip count M must be a single int64");
  if (cond && (cond->dtype != DType::Bool || !cond->shape_known || cond->num_elements() != 1))
    throw CompileError(who + ": the condition must be a single bool");
  std::vector<Value*>& state = loop.state;
  for (size_t i = 0; i < ncarried; ++i) state.push_back(nv.input(2 + i));  // initial values
  for (size_t i = 0; i < ncarried; ++i)
    if (!state[i] || (!state[i]->shape_known && !state[i]->is_sequence))
      throw CompileError(who + ": loop-carried value " + std::to_string(i) + " has no initial value of static shape");
  // A loop-carried sequence is a compile-time list (sequence/resolve_sequences.h):
  // each unrolled step edits it, which needs a static number of steps and no
  // run-time choice between two lists (a loop that may stop early).
  for (size_t i = 0; i < ncarried && loop.carried_sequence.empty(); ++i)
    if (state[i]->is_sequence)
      loop.carried_sequence =
          "loop-carried value " + std::to_string(i) + " (" + in_quotes(state[i]->name) + ") is a sequence";

  if (m) {
    std::deque<Value> tmp;
    if (ConstantPtr c = compile_time_value(m, 0, &tmp)) loop.trips = std::max<int64_t>(0, c->as_int64(0));
  }
  loop.cond0 = cond ? cond_of(cond, nv.name) : Cond::of(true);
  loop.stops_early = loop.cond0.known != 1 || !body_never_stops(*body);
  return loop;
}

// The node's output `nm` with the type the flattening computed. Shape inference
// may know it (it must then agree) or not (a scan output's length).
Value* Flattener::loop_output(const NodeView& nv, size_t i, DType dt, const Shape& shape, const std::string& who) {
  const std::string nm = nv.output_name(i);
  Value* out = nv.make_output_typed(i, dt, shape);
  if (out->dtype != dt || out->shape != shape)
    throw CompileError(who + ": output " + in_quotes(nm) + " is declared " + std::string(dtype_name(out->dtype)) + " " +
                       shape_str(out->shape) + " but the unrolled loop computes " + dtype_name(dt) + " " +
                       shape_str(shape));
  return out;
}

// The body-side types of a Loop's inputs: iteration_num, cond_in, then the
// loop-carried values (declared by the body, else the initial values').
std::vector<Shape> Flattener::loop_body_shapes(const Graph& body, const std::vector<Value*>& state) {
  std::vector<Shape> shapes;
  for (size_t i = 0; i < body.inputs.size(); ++i) {
    const Value* vi = body.inputs[i];
    const bool declared = !vi->is_sequence && vi->dtype != DType::Undefined && vi->shape_known;
    shapes.push_back(declared ? vi->shape : i == 0 || i == 1 ? Shape{} : state[i - 2]->shape);
  }
  return shapes;
}

// The number of iterations a Loop's scan outputs declare when the run decides how
// many run (a run-time M or stop): each present scan output is made with its
// declared shape (into scan_outs), and they must agree on a static first
// dimension. -1 when no scan output is present. `why` says why the length is
// not known otherwise.
int64_t Flattener::declared_scan_length(const NodeView& nv, size_t ncarried, const std::string& why,
                                        std::vector<Value*>& scan_outs) {
  const std::string who = "Loop " + in_quotes(nv.name);
  int64_t len = -1;
  for (size_t k = 0; k < scan_outs.size(); ++k) {
    const size_t o = ncarried + k;
    if (o >= nv.node->outputs.size() || nv.omitted(o)) continue;
    try {
      scan_outs[k] = nv.make_output(o);
    } catch (const CompileError&) {
      throw CompileError(who + ": scan output " + in_quotes(nv.output_name(o)) + " has a data-dependent length (" + why +
                         "); Kiln needs static shapes: give the output a static shape in the model, or make M a "
                         "constant and the loop run all M iterations");
    }
    const Value* v = scan_outs[k];
    if (v->shape.empty() || (len >= 0 && v->shape[0] != len))
      throw CompileError(who + ": scan outputs do not declare one static number of iterations");
    len = v->shape[0];
  }
  return len;
}

// ---- Conditions: known at compile time where possible, else scalar bool nodes.

Cond Flattener::cond_of(Value* v, const std::string& name) {
  const int k = known_bool(v);
  if (k >= 0) return Cond::of(k == 1);
  // A condition computed from constants (a body's `i + 1 < n` once n has folded).
  std::deque<Value> tmp;
  if (ConstantPtr c = compile_time_value(v, 0, &tmp); c && c->dtype() == DType::Bool && c->num_elements() == 1)
    return Cond::of(c->data()[0] != 0);
  return Cond{-1, reshape(v, {}, name + ".cond")};
}

Cond Flattener::logic(const char* op, Cond a, Cond b, const std::string& name) {
  const bool is_and = std::string(op) == "And";
  if (a.known == (is_and ? 0 : 1) || b.known == (is_and ? 0 : 1)) return Cond::of(!is_and);
  if (a.known >= 0) return b;
  if (b.known >= 0) return a;
  Value* out = g_.add_value(g_.unique_name(name + ".active"), DType::Bool, {});
  g_.add_node(op, g_.unique_name(name + "." + op), {a.v, b.v}, {out});
  return Cond{-1, out};
}

Cond Flattener::negate(Cond a, const std::string& name) {
  if (a.known >= 0) return Cond::of(a.known == 0);
  Value* out = g_.add_value(g_.unique_name(name + ".not"), DType::Bool, {});
  g_.add_node("Not", g_.unique_name(name + ".not"), {a.v}, {out});
  return Cond{-1, out};
}

// `t < M`: true without M, known with a constant M, else a Less node.
Cond Flattener::below_trip_count(int64_t t, Value* m, std::optional<int64_t> trips, const std::string& name) {
  if (!m) return Cond::of(true);
  if (trips) return Cond::of(t < *trips);
  Value* tv = g_.add_value(g_.unique_name(name + ".iter"), DType::Int64, {});
  tv->constant = Constant::from_int64s({}, {t});
  Value* out = g_.add_value(g_.unique_name(name + ".in_range"), DType::Bool, {});
  g_.add_node("Less", g_.unique_name(name + ".less"), {tv, reshape(m, {}, name + ".m")}, {out});
  return Cond{-1, out};
}

}  // namespace kiln::controlflow
