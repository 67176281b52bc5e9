// Per-node type and shape inference after import, with ONNX's own inference
// functions.
//
// ONNX's model-level shape inference runs once at import, before anything is
// folded, so a value whose shape depends on a computed constant (PyTorch's
// `x.view(x.size(0), -1)` becomes Shape -> Gather -> Unsqueeze -> Concat ->
// Reshape) arrives with an unknown shape. Once folding has turned that chain into
// a constant, the same ONNX inference function, given the constant as input data,
// knows the shape. This module runs it for one node at a time on Kiln's IR.
#pragma once

#include <cstddef>

#include "ir/graph.h"

namespace kiln {

// Re-infers the outputs of `node` from its inputs' dtypes and shapes and the data
// of its constant inputs. Returns true when every output now has a dtype and a
// static shape (they are written into the output values); false when ONNX's
// inference cannot tell yet (an input shape is still unknown, a shape-defining
// input is not constant). Throws CompileError naming the node when ONNX's
// inference rejects it.
bool infer_node_shapes(Node& node);

// Runs infer_node_shapes, in schedule order, on every node with an output whose
// shape is not known yet. Returns how many nodes were resolved.
size_t infer_unknown_shapes(Graph& graph);

// Throws CompileError naming the first node (in schedule order) that produces a
// used value whose shape is still unknown.
void require_static_shapes(const Graph& graph);

}  // namespace kiln
