// ONNX sequences whose positions are only known at run time.
//
// resolve_sequences (resolve_sequences.h) keeps a sequence as a compile-time list
// of element values while every position is a constant. When the driver's fold /
// shape-inference / resolve loop has settled and a SequenceInsert, SequenceErase or
// SequenceAt still has a position computed at run time, this pass turns that
// sequence, and every sequence derived from it by Insert / Erase / Identity, into a
// run-time table (crt kiln/sequence.h): one uint8 tensor holding a count, a slot
// index per element and one slot of element storage per element that can ever be
// in it (the elements it starts with plus every Insert downstream: the static
// bound). It is an ordinary value, so the bufferizer and planner place it like any
// activation; Insert and Erase update it in place when the older sequence is dead.
//   start (list known)    KilnSeqBuild: the list's elements copied into slots 0..n-1
//   SequenceInsert        KilnSeqInsert: the element copied into its own free slot
//   SequenceErase         KilnSeqErase: only the table changes
//   SequenceAt            KilnSeqAt: a copy of the element (the table may change later)
//   SequenceLength        the count, a compile-time constant
//   Identity              a view of the table
//   any other use         KilnSeqMaterialize: copies of every element, which become a
//                         compile-time list again (ConcatFromSequence, graph outputs,
//                         SequenceMap are then resolved as usual)
// The length stays known at compile time; only the positions are run-time values.
// All elements a run-time position can select must have one shape and dtype, else
// the compile fails naming the op (the result's shape would be data dependent).
#pragma once

#include <cstddef>

#include "ir/graph.h"

namespace kiln {

// Rewrites the sequences described above. Returns how many nodes it rewrote (0 when
// no sequence op has a run-time position over a known list). Throws CompileError
// naming the op for elements of different shapes, an element whose shape is not
// known, a constant position out of range, or an empty sequence.
size_t resolve_runtime_positions(Graph& graph);

}  // namespace kiln
