// ONNX sequences resolved at compile time.
//
// Kiln plans memory for one static schedule, so a sequence value is not a run-time
// object: it is a compile-time list of element tensor values. This pass walks the
// schedule and rewrites every sequence op whose operands are known:
//   SequenceEmpty / SequenceConstruct   canonical list producers (kept until unused)
//   SequenceInsert / SequenceErase      list edits -> SequenceConstruct of the new list
//   Identity of a sequence              -> SequenceConstruct of the same list
//   SequenceAt                          -> Identity of the element (a view: no copy)
//   SequenceLength                      -> Identity of an int64 constant (folded later)
//   ConcatFromSequence                  -> Concat (Reshape + Concat for new_axis=1); the
//                                          bufferizer writes producers by placement
//   SplitToSequence                     -> Split (+ Reshape for keepdims=0) into elements
//   SequenceMap                         -> its body unrolled once per element
// A sequence-typed graph output becomes tensor outputs <name>_0.. (Identity views of
// its elements), recorded in Graph::sequence_io. Once no sequence value is used the
// SequenceConstruct/SequenceEmpty nodes are dead and removed, so no later stage sees a
// sequence. Positions folded to constants are resolved here; one only known at run
// time is left for runtime_sequences.h (a run-time table); a sequence op left
// unresolved after both makes require_sequences_resolved fail naming it. See
// docs/bufferization.md ("Sequences").
#pragma once

#include <cstddef>

#include "ir/graph.h"

namespace kiln {

// Rewrites every sequence op it can (see above). Returns how many nodes it rewrote;
// the driver alternates it with folding and shape inference until nothing changes.
// Throws CompileError naming the node for an out-of-range position or a bad operand.
size_t resolve_sequences(Graph& graph);

// Throws CompileError naming the first node that still reads or produces a sequence
// (a position or split only known at run time, an element shape never resolved).
void require_sequences_resolved(const Graph& graph);

}  // namespace kiln
