// What the control-flow lowering can know at compile time: a value's constant (or
// the evaluation of the constant chain that computes it), a bool condition seen
// through Identity, whether a Loop body never stops early, and whether a Loop's trip
// count and condition are settled enough to lower it now. Queries only: the graph
// is never changed (evaluations run on private copies).
#pragma once

#include <cstdint>
#include <deque>

#include "controlflow/node_view.h"
#include "ir/graph.h"

namespace kiln::controlflow {

// A node with `n`'s name, type and attributes but no inputs or outputs, to be
// given stand-in values for shape inference or evaluation.
Node detached_copy(const Node& n);

// The compile-time value of `v`: its constant, or the result of evaluating the
// chain of nodes that computes it when every leaf is a constant (a trip count
// written as Ceil(Div(...)) of constants) or the SequenceLength of a sequence of
// known length (an expanded SequenceMap's trip count). Graph values are never
// changed: the evaluation runs on private copies kept in `tmp`.
ConstantPtr compile_time_value(const Value* v, int depth, std::deque<Value>* tmp);

// The value `v` is known to hold at compile time when it is a bool constant (seen
// through Identity nodes): 1 all true, 0 all false, -1 unknown.
int known_bool(const Value* v);

// Whether a Loop body's cond_out is, in the body itself, its cond_in passed
// through Identity nodes or a constant true: the loop then never stops early.
bool body_never_stops(const Graph& body);

// Whether a Loop can be lowered as well now as after more folding: its trip count
// (if any) and its condition (if any) are known at compile time, or it carries or
// returns a sequence (the sequence pass needs it unrolled). Otherwise it waits,
// inside the settle fixed point, until folding has settled them (a trip count
// Shape(x)[0] once --input-shape fixes x), and is lowered as it stands (run-time
// condition, or a trip count bounded by the scan outputs' declared length) only
// once the graph has settled.
bool loop_decidable(const NodeView& loop);

}  // namespace kiln::controlflow
