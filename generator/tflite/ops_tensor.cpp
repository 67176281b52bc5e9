// TFLite operators that index, reduce or reshape whole tensors -> ONNX-style IR
// ops: SUM / REDUCE_MAX / REDUCE_MIN, ARG_MAX / ARG_MIN, GATHER, GATHER_ND,
// EMBEDDING_LOOKUP, SHAPE, FILL, ZEROS_LIKE, BROADCAST_TO, SPLIT_V, REVERSE_V2,
// MIRROR_PAD, SPACE_TO_DEPTH, CUMSUM, L2_NORMALIZATION, LOG_SOFTMAX, PRELU.
//
// Operators that only move or pick bytes (gather, reverse, broadcast, split,
// space-to-depth, arg max) accept int8 too when input and output share their
// quantization: TFLite's kernels copy or compare the raw bytes, and so does Kiln.
// Operators that compute (sums, normalization, log-softmax, PRELU, CUMSUM) are
// float32 here. Axes, sizes and shapes that TFLite takes as input tensors must be
// constants: Kiln plans memory from static shapes.

#include <algorithm>

#include "tflite/import_context.h"
#include "util/quoted.h"

namespace kiln::tflite {

namespace fb = kiln::tflite_fb;

namespace {

// Float32, or a byte-moving op on int8 with the output's quantization.
void require_float_or_same_int8(ImportContext& c, const Operator& op, const Tensor& x, const Tensor& y) {
  if (x.dtype == DType::Int8 || x.dtype == DType::Int32 || x.dtype == DType::Bool) {
    c.require_same_quantization(op, x, y);
    return;
  }
  c.require_dtype(op, x, DType::Float32);
  c.require_dtype(op, y, DType::Float32);
}

// Input `i` as constant integers (axes, sizes, shapes), each checked against [lo, hi].
std::vector<int64_t> constant_ints(ImportContext& c, const Operator& op, size_t i, const std::string& what) {
  const Tensor& t = c.input(op, i);
  if (t.dtype != DType::Int32 && t.dtype != DType::Int64)
    c.fail(op, what + " " + t.quoted() + " must be int32 or int64, it is " + dtype_name(t.dtype));
  if (!t.data) c.fail(op, what + " " + t.quoted() + " must be a constant (Kiln needs static shapes)");
  return c.constant_input(op, i)->to_int64s();
}

// Axes in [-rank, rank) made non-negative.
std::vector<int64_t> normalized_axes(ImportContext& c, const Operator& op, std::vector<int64_t> axes, size_t rank) {
  for (auto& a : axes) {
    if (a < -int64_t(rank) || a >= int64_t(rank))
      c.fail(op, "axis " + std::to_string(a) + " is outside a rank-" + std::to_string(rank) + " tensor");
    if (a < 0) a += int64_t(rank);
  }
  return axes;
}

// SUM, REDUCE_MAX, REDUCE_MIN over constant axes (input 1), keep_dims from the options.
void reduce(ImportContext& c, const Operator& op, const std::string& onnx_op) {
  c.require_arity(op, 2, 2, 1);
  const Tensor &x = c.input(op, 0), &y = c.output(op, 0);
  if (onnx_op == "ReduceSum") {
    c.require_dtype(op, x, DType::Float32);
    c.require_dtype(op, y, DType::Float32);
  } else {
    require_float_or_same_int8(c, op, x, y);  // max and min pick an element
  }
  std::vector<int64_t> axes = normalized_axes(c, op, constant_ints(c, op, 1, "axes"), x.shape.size());
  std::sort(axes.begin(), axes.end());
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  const auto* o = c.options<fb::ReducerOptions>(op, false);
  const int64_t keep = o && o->keep_dims() ? 1 : 0;
  if (axes.empty()) {  // TFLite reduces nothing: the input as it is
    c.add(op, "Identity", {c.value(op, 0)}, {c.output_value(op, 0)});
    return;
  }
  Node* n = nullptr;
  if (onnx_op == "ReduceSum") {  // axes are an input from opset 13
    n = c.add(op, onnx_op, {c.value(op, 0), c.int64s(op, axes, "axes")}, {c.output_value(op, 0)});
  } else {
    n = c.add(op, onnx_op, {c.value(op, 0)}, {c.output_value(op, 0)});
    n->attrs["axes"] = axes;
  }
  n->attrs["keepdims"] = keep;
}

// ARG_MAX / ARG_MIN along a constant axis; int32 or int64 indices. The first of
// equal values wins, in TFLite and in ONNX (select_last_index = 0).
void arg_reduce(ImportContext& c, const Operator& op, const std::string& onnx_op) {
  c.require_arity(op, 2, 2, 1);
  const Tensor &x = c.input(op, 0), &y = c.output(op, 0);
  if (x.dtype != DType::Float32 && x.dtype != DType::Int8 && x.dtype != DType::Int32)
    c.fail(op, x.label() + " is " + dtype_name(x.dtype) + "; Kiln finds the arg max / min of float32, int8 and int32");
  if (y.dtype != DType::Int32 && y.dtype != DType::Int64)
    c.fail(op, "output " + y.quoted() + " must be int32 or int64, it is " + dtype_name(y.dtype));
  const std::vector<int64_t> axis = normalized_axes(c, op, constant_ints(c, op, 1, "axis"), x.shape.size());
  if (axis.size() != 1) c.fail(op, "the axis input must hold one value");
  Value* out = c.output_value(op, 0);
  Value* idx = y.dtype == DType::Int64 ? out : c.temp(op, DType::Int64, out->shape, "indices");
  Node* n = c.add(op, onnx_op, {c.value(op, 0)}, {idx});
  n->attrs["axis"] = axis[0];
  n->attrs["keepdims"] = int64_t(0);
  if (idx != out) c.add(op, "Cast", {idx}, {out}, "to_int32")->attrs["to"] = int64_t(DType::Int32);
}

// GATHER (batch_dims 0) and EMBEDDING_LOOKUP (GATHER on axis 0).
void gather(ImportContext& c, const Operator& op, bool embedding) {
  c.require_arity(op, 2, 2, 1);
  // EMBEDDING_LOOKUP takes (ids, table); GATHER takes (params, indices).
  const size_t data = embedding ? 1 : 0, index = embedding ? 0 : 1;
  const Tensor &x = c.input(op, data), &ids = c.input(op, index), &y = c.output(op, 0);
  require_float_or_same_int8(c, op, x, y);
  if (ids.dtype != DType::Int32 && ids.dtype != DType::Int64)
    c.fail(op, "indices " + ids.quoted() + " must be int32 or int64, it is " + dtype_name(ids.dtype));
  int64_t axis = 0;
  if (!embedding) {
    const auto* o = c.options<fb::GatherOptions>(op, false);
    if (o && o->batch_dims() != 0) c.fail(op, "batch_dims " + std::to_string(o->batch_dims()) + " is not supported");
    axis = normalized_axes(c, op, {o ? o->axis() : 0}, x.shape.size())[0];
  }
  // TFLite refuses an index outside [0, dim). Constant indices are checked here; the
  // kernel returns an error status for a run-time one outside the axis.
  if (ids.data)
    for (int64_t i : c.constant_input(op, index)->to_int64s())
      if (i < 0 || i >= x.shape[size_t(axis)])
        c.fail(op, "index " + std::to_string(i) + " is outside [0, " + std::to_string(x.shape[size_t(axis)]) + ")");
  Node* n = c.add(op, "Gather", {c.value(op, data), c.value(op, index)}, {c.output_value(op, 0)});
  n->attrs["axis"] = axis;
}

// GATHER_ND: ONNX GatherND with batch_dims 0 (int64 indices).
void gather_nd(ImportContext& c, const Operator& op) {
  c.require_arity(op, 2, 2, 1);
  const Tensor &x = c.input(op, 0), &ids = c.input(op, 1), &y = c.output(op, 0);
  require_float_or_same_int8(c, op, x, y);
  if (ids.dtype != DType::Int32 && ids.dtype != DType::Int64)
    c.fail(op, "indices " + ids.quoted() + " must be int32 or int64, it is " + dtype_name(ids.dtype));
  if (ids.shape.empty() || ids.shape.back() > int64_t(x.shape.size()))
    c.fail(op, "indices " + ids.quoted() + " of shape " + shape_str(ids.shape) + " do not index " + shape_str(x.shape));
  Value* idx = c.value(op, 1);
  if (ids.dtype == DType::Int32) {
    Value* wide = c.temp(op, DType::Int64, idx->shape, "indices64");
    c.add(op, "Cast", {idx}, {wide}, "indices64")->attrs["to"] = int64_t(DType::Int64);
    idx = wide;
  }
  c.add(op, "GatherND", {c.value(op, 0), idx}, {c.output_value(op, 0)});
}

// SHAPE: the input's static shape as a constant of the output's type.
void shape(ImportContext& c, const Operator& op) {
  c.require_arity(op, 1, 1, 1);
  const Tensor &x = c.input(op, 0), &y = c.output(op, 0);
  if (y.dtype != DType::Int32 && y.dtype != DType::Int64)
    c.fail(op, "output " + y.quoted() + " must be int32 or int64, it is " + dtype_name(y.dtype));
  std::vector<double> dims(x.shape.begin(), x.shape.end());
  Value* s = c.constant(op, Constant::from_doubles(y.dtype, {int64_t(dims.size())}, dims), "shape");
  c.add(op, "Identity", {s}, {c.output_value(op, 0)});
}

// FILL: a constant shape filled with a (constant or run-time) scalar, as Expand.
void fill(ImportContext& c, const Operator& op) {
  c.require_arity(op, 2, 2, 1);
  const Tensor &v = c.input(op, 1), &y = c.output(op, 0);
  if (shape_elements(v.shape) != 1) c.fail(op, "the value " + v.quoted() + " must hold one element");
  c.require_same_quantization(op, v, y);
  const std::vector<int64_t> dims = constant_ints(c, op, 0, "dims");
  if (dims != y.shape) c.fail(op, "dims " + shape_str(dims) + " differ from the output's shape " + shape_str(y.shape));
  c.add(op, "Expand", {c.value(op, 1), c.int64s(op, dims, "dims")}, {c.output_value(op, 0)});
}

// ZEROS_LIKE: zeros of the input's shape and type.
void zeros_like(ImportContext& c, const Operator& op) {
  c.require_arity(op, 1, 1, 1);
  const Tensor &x = c.input(op, 0), &y = c.output(op, 0);
  c.require_same_quantization(op, x, y);
  if (!x.quant.scale.empty()) c.fail(op, "a quantized input is not supported (zero is its zero point)");
  Value* z = c.constant(op, Constant::from_doubles(x.dtype, x.shape, std::vector<double>(size_t(shape_elements(x.shape)), 0.0)),
                        "zeros");
  c.add(op, "Identity", {z}, {c.output_value(op, 0)});
}

// BROADCAST_TO: numpy broadcasting to a constant shape (ONNX Expand).
void broadcast_to(ImportContext& c, const Operator& op) {
  c.require_arity(op, 2, 2, 1);
  const Tensor &x = c.input(op, 0), &y = c.output(op, 0);
  require_float_or_same_int8(c, op, x, y);
  const std::vector<int64_t> dims = constant_ints(c, op, 1, "shape");
  if (dims != y.shape) c.fail(op, "shape " + shape_str(dims) + " differs from the output's shape " + shape_str(y.shape));
  c.add(op, "Expand", {c.value(op, 0), c.int64s(op, dims, "shape")}, {c.output_value(op, 0)});
}

// SPLIT_V: sizes (input 1, one of them may be -1) along a constant axis (input 2).
void split_v(ImportContext& c, const Operator& op) {
  c.require_arity(op, 3, 3, op.outputs.size());
  const Tensor& x = c.input(op, 0);
  std::vector<int64_t> sizes = constant_ints(c, op, 1, "size_splits");
  const int64_t axis = normalized_axes(c, op, constant_ints(c, op, 2, "axis"), x.shape.size()).at(0);
  if (sizes.size() != op.outputs.size())
    c.fail(op, std::to_string(sizes.size()) + " sizes for " + std::to_string(op.outputs.size()) + " outputs");
  int64_t known = 0, unknown = -1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1 && unknown < 0) unknown = int64_t(i);
    else if (sizes[i] < 0) c.fail(op, "size " + std::to_string(sizes[i]) + " is negative");
    else known += sizes[i];
  }
  const int64_t dim = x.shape[size_t(axis)];
  if (unknown >= 0) sizes[size_t(unknown)] = dim - known;
  if ((unknown >= 0 && known > dim) || (unknown < 0 && known != dim))
    c.fail(op, "sizes " + shape_str(sizes) + " do not split a dimension of " + std::to_string(dim));
  std::vector<Value*> outs;
  for (size_t i = 0; i < op.outputs.size(); ++i) {
    c.require_same_quantization(op, x, c.output(op, i));
    outs.push_back(c.output_value(op, i));
  }
  Node* n = c.add(op, "Split", {c.value(op, 0), c.int64s(op, sizes, "split")}, outs);
  n->attrs["axis"] = axis;
}

// REVERSE_V2 over constant axes: a Slice with step -1 on each.
void reverse_v2(ImportContext& c, const Operator& op) {
  c.require_arity(op, 2, 2, 1);
  const Tensor &x = c.input(op, 0), &y = c.output(op, 0);
  require_float_or_same_int8(c, op, x, y);
  std::vector<int64_t> axes = normalized_axes(c, op, constant_ints(c, op, 1, "axis"), x.shape.size());
  std::sort(axes.begin(), axes.end());
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  if (axes.empty()) {
    c.add(op, "Identity", {c.value(op, 0)}, {c.output_value(op, 0)});
    return;
  }
  // Each axis from its last element (-1) back past its first (INT64_MIN), step -1.
  const std::vector<int64_t> starts(axes.size(), -1), ends(axes.size(), INT64_MIN), steps(axes.size(), -1);
  c.add(op, "Slice",
        {c.value(op, 0), c.int64s(op, starts, "starts"), c.int64s(op, ends, "ends"), c.int64s(op, axes, "axes"),
         c.int64s(op, steps, "steps")},
        {c.output_value(op, 0)});
}

// MIRROR_PAD in REFLECT mode (ONNX Pad, mode reflect). SYMMETRIC repeats the edge
// element, which ONNX's Pad has no mode for: refused by name.
void mirror_pad(ImportContext& c, const Operator& op) {
  c.require_arity(op, 2, 2, 1);
  const Tensor &x = c.input(op, 0), &y = c.output(op, 0);
  require_float_or_same_int8(c, op, x, y);
  const auto* o = c.options<fb::MirrorPadOptions>(op, false);
  if (o && o->mode() != fb::MirrorPadMode::REFLECT) c.fail(op, "mode SYMMETRIC is not supported (REFLECT is)");
  const std::vector<int64_t> pads = constant_ints(c, op, 1, "paddings");
  const size_t rank = x.shape.size();
  if (pads.size() != 2 * rank) c.fail(op, "paddings must be [" + std::to_string(rank) + ", 2]");
  std::vector<int64_t> onnx_pads(2 * rank);
  for (size_t d = 0; d < rank; ++d) {
    const int64_t before = pads[2 * d], after = pads[2 * d + 1];
    if (before < 0 || after < 0 || before >= x.shape[d] || after >= x.shape[d])
      c.fail(op, "padding " + std::to_string(before) + ", " + std::to_string(after) + " of axis " + std::to_string(d) +
                     " must be below its size " + std::to_string(x.shape[d]) + " in REFLECT mode");
    onnx_pads[d] = before;
    onnx_pads[rank + d] = after;
  }
  Node* n = c.add(op, "Pad", {c.value(op, 0), c.int64s(op, onnx_pads, "pads")}, {c.output_value(op, 0)});
  n->attrs["mode"] = std::string("reflect");
}

// SPACE_TO_DEPTH on NHWC: [n, h, w, c] -> [n, h/b, w/b, b*b*c], the block's rows
// outermost (the inverse of DEPTH_TO_SPACE in ops_layout.cpp).
void space_to_depth(ImportContext& c, const Operator& op) {
  c.require_arity(op, 1, 1, 1);
  const Tensor &x = c.input(op, 0), &y = c.output(op, 0);
  c.require_same_quantization(op, x, y);
  c.require_rank(op, x, 4);
  const int64_t b = c.options<fb::SpaceToDepthOptions>(op)->block_size();
  const int64_t n = x.shape[0], h = x.shape[1], w = x.shape[2], ch = x.shape[3];
  if (b < 1 || h % b != 0 || w % b != 0)
    c.fail(op, "block size " + std::to_string(b) + " does not divide the " + std::to_string(h) + "x" +
                   std::to_string(w) + " image");
  if (y.shape != Shape{n, h / b, w / b, b * b * ch})
    c.fail(op, "output " + y.quoted() + " has shape " + shape_str(y.shape) + ", expected " +
                   shape_str({n, h / b, w / b, b * b * ch}));
  Value* split = c.temp(op, x.dtype, {n, h / b, b, w / b, b, ch}, "split");
  c.add(op, "Reshape", {c.value(op, 0), c.int64s(op, split->shape, "split_shape")}, {split}, "split");
  Value* moved = c.temp(op, x.dtype, {n, h / b, w / b, b, b, ch}, "moved");
  c.add(op, "Transpose", {split}, {moved}, "move")->attrs["perm"] = std::vector<int64_t>{0, 1, 3, 2, 4, 5};
  c.add(op, "Reshape", {moved, c.int64s(op, y.shape, "shape")}, {c.output_value(op, 0)}, "merge");
}

// CUMSUM along a constant axis, exclusive and reverse from the options.
void cumsum(ImportContext& c, const Operator& op) {
  c.require_arity(op, 2, 2, 1);
  const Tensor &x = c.input(op, 0), &y = c.output(op, 0);
  c.require_dtype(op, x, DType::Float32);
  c.require_dtype(op, y, DType::Float32);
  const std::vector<int64_t> axis = normalized_axes(c, op, constant_ints(c, op, 1, "axis"), x.shape.size());
  if (axis.size() != 1) c.fail(op, "the axis input must hold one value");
  const auto* o = c.options<fb::CumsumOptions>(op, false);
  Node* n = c.add(op, "CumSum", {c.value(op, 0), c.int64s(op, axis, "axis")}, {c.output_value(op, 0)});
  n->attrs["exclusive"] = int64_t(o && o->exclusive() ? 1 : 0);
  n->attrs["reverse"] = int64_t(o && o->reverse() ? 1 : 0);
}

// L2_NORMALIZATION over the last axis: x / max(sqrt(sum(x^2)), 1e-6), TFLite's
// float kernel (its epsilon keeps an all-zero row at zero).
void l2_normalization(ImportContext& c, const Operator& op) {
  c.require_arity(op, 1, 1, 1);
  const Tensor &x = c.input(op, 0), &y = c.output(op, 0);
  c.require_dtype(op, x, DType::Float32);
  c.require_dtype(op, y, DType::Float32);
  if (x.shape.empty()) c.fail(op, "the input must have rank 1 or more");
  const auto* o = c.options<fb::L2NormOptions>(op, false);
  if (o && o->fused_activation_function() != fb::ActivationFunctionType::NONE)
    c.fail(op, "a fused activation is not supported");
  Shape reduced = x.shape;
  reduced.back() = 1;
  Value* sq = c.temp(op, DType::Float32, reduced, "sum_of_squares");
  Node* r = c.add(op, "ReduceSumSquare", {c.value(op, 0)}, {sq}, "sum_of_squares");
  r->attrs["axes"] = std::vector<int64_t>{int64_t(x.shape.size()) - 1};
  r->attrs["keepdims"] = int64_t(1);
  Value* norm = c.temp(op, DType::Float32, reduced, "norm");
  c.add(op, "Sqrt", {sq}, {norm}, "norm");
  Value* floor = c.temp(op, DType::Float32, reduced, "norm_at_least_epsilon");
  c.add(op, "Max", {norm, c.constant(op, Constant::from_floats({}, {1e-6f}), "epsilon")}, {floor}, "epsilon");
  c.add(op, "Div", {c.value(op, 0), floor}, {c.output_value(op, 0)});
}

// LOG_SOFTMAX over the last axis.
void log_softmax(ImportContext& c, const Operator& op) {
  c.require_arity(op, 1, 1, 1);
  c.require_dtype(op, c.input(op, 0), DType::Float32);
  c.require_dtype(op, c.output(op, 0), DType::Float32);
  c.add(op, "LogSoftmax", {c.value(op, 0)}, {c.output_value(op, 0)})->attrs["axis"] = int64_t(-1);
}

// PRELU: x < 0 ? alpha * x : x, alpha broadcast numpy-style (ONNX PRelu).
void prelu(ImportContext& c, const Operator& op) {
  c.require_arity(op, 2, 2, 1);
  for (size_t i = 0; i < 2; ++i) c.require_dtype(op, c.input(op, i), DType::Float32);
  c.require_dtype(op, c.output(op, 0), DType::Float32);
  c.add(op, "PRelu", {c.value(op, 0), c.value(op, 1)}, {c.output_value(op, 0)});
}

}  // namespace

void register_tensor_ops() {
  using B = fb::BuiltinOperator;
  const auto Any = OpFlavor::Any;
  const auto F = OpFlavor::Float;
  register_op(B::SUM, Any, [](ImportContext& c, const Operator& op) { reduce(c, op, "ReduceSum"); });
  register_op(B::REDUCE_MAX, Any, [](ImportContext& c, const Operator& op) { reduce(c, op, "ReduceMax"); });
  register_op(B::REDUCE_MIN, Any, [](ImportContext& c, const Operator& op) { reduce(c, op, "ReduceMin"); });
  register_op(B::ARG_MAX, Any, [](ImportContext& c, const Operator& op) { arg_reduce(c, op, "ArgMax"); });
  register_op(B::ARG_MIN, Any, [](ImportContext& c, const Operator& op) { arg_reduce(c, op, "ArgMin"); });
  register_op(B::GATHER, Any, [](ImportContext& c, const Operator& op) { gather(c, op, false); });
  register_op(B::EMBEDDING_LOOKUP, Any, [](ImportContext& c, const Operator& op) { gather(c, op, true); });
  register_op(B::GATHER_ND, Any, gather_nd);
  register_op(B::SHAPE, Any, shape);
  register_op(B::FILL, Any, fill);
  register_op(B::ZEROS_LIKE, Any, zeros_like);
  register_op(B::BROADCAST_TO, Any, broadcast_to);
  register_op(B::SPLIT_V, Any, split_v);
  register_op(B::REVERSE_V2, Any, reverse_v2);
  register_op(B::MIRROR_PAD, Any, mirror_pad);
  register_op(B::SPACE_TO_DEPTH, Any, space_to_depth);
  register_op(B::CUMSUM, F, cumsum);
  register_op(B::L2_NORMALIZATION, F, l2_normalization);
  register_op(B::LOG_SOFTMAX, F, log_softmax);
  register_op(B::PRELU, F, prelu);
}

}  // namespace kiln::tflite
