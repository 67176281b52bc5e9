// Host evaluation of nodes whose inputs are known at compile time, shared by
// constant folding (fold/) and control-flow lowering (a Loop's trip count). Values are
// computed in wide precision (double for floats, int64/uint64 for integers) and
// floats are rounded once to the output dtype, at emission (see docs/folding.md).
//
// Results are Constants that share storage with their inputs whenever they can:
// Reshape/Transpose/Expand/Slice/Squeeze/... are views, ConstantOfShape is a splat,
// Cast/unary math/binary with a small operand are lazy transforms; only the rest
// (binary of two big operands, Concat, Gather, reductions, ...) allocate.
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"

namespace kiln {

struct EvalResult {
  bool evaluated = false;
  bool skipped_by_size_limit = false;
  std::vector<ConstantPtr> outputs;
};

// Ops whose result depends only on input shapes (Shape, Size): foldable even when
// the input is computed at run time.
bool can_evaluate_without_inputs(const Node& n);

// Whether Kiln has an evaluator for this op type (default domain).
bool has_evaluator(const std::string& op_type);

// Evaluates `n` if Kiln has an evaluator for it and every input it reads is
// constant; `size_limit` bounds the bytes of a result that is bigger than the
// node's inputs (the fold is then skipped and reported).
EvalResult evaluate_node(const Node& n, int64_t size_limit);

// `a op b` (Add, Mul, ...) with numpy broadcasting to `shape`, as folding computes
// it: lazily when one side is small, else into new wide storage.
ConstantPtr fold_binary(const std::string& op, const ConstantPtr& a, const ConstantPtr& b, DType out_dtype,
                        const Shape& shape);
// Numpy broadcast of two shapes; throws CompileError naming `what` if incompatible.
Shape broadcast_shapes(const Shape& a, const Shape& b, const std::string& what);

// Element-wise binary math on wide numbers of one kind, as folding does it:
// a[i] = op(a[i], b[i]). Throws for an op without a wide implementation.
void wide_binary(const std::string& op, WideKind kind, WideNum* a, const WideNum* b, int64_t n);

}  // namespace kiln
