// Data movement and the float boundary: operators that work on any dtype.
//
// They stay ordinary ONNX ops on the tensor's own dtype (docs/quantization.md):
// the shapes come from the file's output tensors, which load_tflite validated,
// so a reshape-like operator needs nothing but its output shape.

#include <algorithm>
#include <cmath>

#include "tflite/import_context.h"
#include "tflite/lookup_tables.h"
#include "util/quoted.h"

namespace kiln::tflite {

namespace fb = kiln::tflite_fb;

void quantize_int8_to_int8(ImportContext& c, const Operator& op);  // ops_quantized.cpp

namespace {

// RESHAPE, SQUEEZE, EXPAND_DIMS: the output tensor's shape says it all.
void reshape(ImportContext& c, const Operator& op, size_t max_inputs) {
  c.require_arity(op, 1, max_inputs, 1);
  const Tensor &x = c.input(op, 0), &y = c.output(op, 0);
  c.require_same_quantization(op, x, y);
  if (shape_elements(x.shape) != shape_elements(y.shape))
    c.fail(op, "cannot reshape " + shape_str(x.shape) + " to " + shape_str(y.shape));
  c.add(op, "Reshape", {c.value(op, 0), c.int64s(op, y.shape, "shape")}, {c.output_value(op, 0)});
}

// QUANTIZE: float -> int8 is KilnQQuantizeF32; int8 -> int8 a requantization table.
void quantize(ImportContext& c, const Operator& op) {
  c.require_arity(op, 1, 1, 1);
  const Tensor &x = c.input(op, 0), &y = c.output(op, 0);
  c.require_dtype(op, y, DType::Int8);
  if (x.dtype == DType::Int8) return quantize_int8_to_int8(c, op);
  c.require_dtype(op, x, DType::Float32);
  if (x.shape != y.shape) c.fail(op, "input and output shapes differ");
  // TFLite rounds x / scale half away from zero (ONNX QuantizeLinear: to even).
  Node* n = c.add(op, "KilnQQuantizeF32", {c.value(op, 0)}, {c.output_value(op, 0)});
  ops::set_attrs(*n, ops::QQuantizeF32{double(c.scale(op, y)), c.zero_point(op, y)});
}

// DEQUANTIZE of a float16 constant (TFLite's "float16 quantization" of weights):
// decoded now to a float32 constant, which the float kernels read as they read
// any weights. Every float16 value, inf, NaN and subnormals included, is exactly
// a float32 value, so the decoding loses nothing.
void dequantize_float16(ImportContext& c, const Operator& op) {
  const Tensor &x = c.input(op, 0), &y = c.output(op, 0);
  c.require_dtype(op, y, DType::Float32);
  if (x.shape != y.shape) c.fail(op, "input and output shapes differ");
  Value* xv = c.value(op, 0);
  if (!xv->constant)
    c.fail(op, "float16 input " + x.quoted() +
                   " is computed at run time; Kiln decodes float16 only in constants (weights)");
  const std::vector<double> wide = xv->constant->to_doubles();
  c.output_value(op, 0)->constant = Constant::from_floats(y.shape, std::vector<float>(wide.begin(), wide.end()));
}

// DENSIFY: its input is a sparse constant, which the reader already densified
// (densify.h); the output is that constant.
void densify_op(ImportContext& c, const Operator& op) {
  c.require_arity(op, 1, 1, 1);
  const Tensor &x = c.input(op, 0), &y = c.output(op, 0);
  if (x.dtype != y.dtype || x.shape != y.shape)
    c.fail(op, "input " + x.quoted() + " " + dtype_name(x.dtype) + shape_str(x.shape) + " and output " +
                   y.quoted() + " " + dtype_name(y.dtype) + shape_str(y.shape) + " differ");
  ConstantPtr data = c.constant_input(op, 0);
  c.output_value(op, 0)->constant = std::move(data);
}

// DEQUANTIZE: int8 -> float is DequantizeLinear; float16 constants are decoded.
void dequantize(ImportContext& c, const Operator& op) {
  c.require_arity(op, 1, 1, 1);
  const Tensor &x = c.input(op, 0), &y = c.output(op, 0);
  if (x.dtype == DType::Float16) return dequantize_float16(c, op);
  c.require_dtype(op, x, DType::Int8);
  c.require_dtype(op, y, DType::Float32);
  if (x.shape != y.shape) c.fail(op, "input and output shapes differ");
  Value* s = c.constant(op, Constant::from_floats({}, {c.scale(op, x)}), "scale");
  Value* z = c.constant(op, Constant::from_wide(DType::Int8, {}, {WideNum{.i = c.zero_point(op, x)}}), "zero_point");
  c.add(op, "DequantizeLinear", {c.value(op, 0), s, z}, {c.output_value(op, 0)});
}

// The int32/int64 elements of a constant input (paddings, perm, begin/end, axis).
std::vector<int64_t> const_ints(ImportContext& c, const Operator& op, size_t i) {
  const Tensor& t = c.input(op, i);
  if (t.dtype != DType::Int32 && t.dtype != DType::Int64)
    c.fail(op, "input " + std::to_string(i) + " (" + t.quoted() + ") must be int32 or int64");
  return c.constant_input(op, i)->to_int64s();
}

// An axis in [-rank, rank) made non-negative.
int64_t normalize_axis(ImportContext& c, const Operator& op, int64_t axis, size_t rank) {
  if (axis < -int64_t(rank) || axis >= int64_t(rank))
    c.fail(op, "axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return axis < 0 ? axis + int64_t(rank) : axis;
}

// The value of input `i`, requantized to `to`'s quantization by a lookup table
// when an int8 input's quantization differs (CONCATENATION, PACK).
Value* requantized_input(ImportContext& c, const Operator& op, size_t i, const Tensor& to) {
  const Tensor& t = c.input(op, i);
  if (t.dtype != to.dtype) c.fail(op, "input " + t.quoted() + " is " + dtype_name(t.dtype) + ", expected " + dtype_name(to.dtype));
  if (t.dtype != DType::Int8 || (t.quant.scale == to.quant.scale && t.quant.zero_point == to.quant.zero_point))
    return c.value(op, i);
  const QuantParams in{c.scale(op, t), int32_t(c.zero_point(op, t))};
  const QuantParams out{c.scale(op, to), int32_t(c.zero_point(op, to))};
  return add_lookup(c, op, c.value(op, i), requantize_table(in, out), nullptr, "requantize_" + std::to_string(i));
}

void concatenation(ImportContext& c, const Operator& op) {
  if (op.inputs.empty() || op.outputs.size() != 1) c.fail(op, "needs at least one input and one output");
  const Tensor& y = c.output(op, 0);
  const auto* o = c.options<fb::ConcatenationOptions>(op);
  if (o->fused_activation_function() != fb::ActivationFunctionType::NONE)
    c.fail(op, "a fused activation on CONCATENATION is not supported");
  const int64_t axis = normalize_axis(c, op, o->axis(), y.shape.size());
  std::vector<Value*> ins;
  int64_t total = 0;
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    const Tensor& t = c.input(op, i);
    if (t.shape.size() != y.shape.size()) c.fail(op, "inputs differ in rank");
    total += t.shape[axis];
    ins.push_back(requantized_input(c, op, i, y));
  }
  if (total != y.shape[axis]) c.fail(op, "the inputs do not add up to the output along the axis");
  Node* n = c.add(op, "Concat", ins, {c.output_value(op, 0)});
  n->attrs["axis"] = axis;
}

// PAD / PADV2: paddings [rank, 2]; the pad value is the zero point of a quantized
// tensor (a real 0), or PADV2's constant.
void pad(ImportContext& c, const Operator& op, bool v2) {
  c.require_arity(op, 2, v2 ? 3 : 2, 1);
  const Tensor &x = c.input(op, 0), &y = c.output(op, 0);
  c.require_same_quantization(op, x, y);
  const auto p = const_ints(c, op, 1);
  const size_t rank = x.shape.size();
  if (p.size() != 2 * rank) c.fail(op, "paddings must be [rank, 2]");
  if (y.shape.size() != rank) c.fail(op, "input and output ranks differ");
  std::vector<int64_t> pads(2 * rank);
  for (size_t d = 0; d < rank; ++d) {
    if (p[2 * d] < 0 || p[2 * d + 1] < 0) c.fail(op, "negative padding is not supported");
    if (x.shape[d] + p[2 * d] + p[2 * d + 1] != y.shape[d]) c.fail(op, "paddings do not give the output shape");
    pads[d] = p[2 * d];
    pads[rank + d] = p[2 * d + 1];
  }
  ConstantPtr value;
  if (v2 && c.has_input(op, 2)) {
    ConstantPtr v = c.constant_input(op, 2);
    if (v->num_elements() != 1 || v->dtype() != x.dtype) c.fail(op, "the pad value must be one element of the input's type");
    value = v->reshaped({});
  } else if (x.dtype == DType::Int8) {
    value = Constant::from_wide(DType::Int8, {}, {WideNum{.i = c.zero_point(op, x)}});
  } else {
    value = Constant::from_wide(x.dtype, {}, {dtype_is_float(x.dtype) ? WideNum{.f = 0.0} : WideNum{.i = 0}});
  }
  c.add(op, "Pad", {c.value(op, 0), c.int64s(op, pads, "pads"), c.constant(op, value, "value")},
        {c.output_value(op, 0)});
}

void transpose(ImportContext& c, const Operator& op) {
  c.require_arity(op, 2, 2, 1);
  const Tensor &x = c.input(op, 0), &y = c.output(op, 0);
  c.require_same_quantization(op, x, y);
  auto perm = const_ints(c, op, 1);
  if (perm.size() != x.shape.size() || y.shape.size() != x.shape.size())
    c.fail(op, "perm does not match the input and output rank");
  std::vector<bool> seen(perm.size());
  for (size_t d = 0; d < perm.size(); ++d) {
    perm[d] = normalize_axis(c, op, perm[d], perm.size());
    if (seen[perm[d]]) c.fail(op, "perm is not a permutation");
    seen[perm[d]] = true;
    if (y.shape[d] != x.shape[perm[d]]) c.fail(op, "perm does not give the output shape");
  }
  Node* n = c.add(op, "Transpose", {c.value(op, 0)}, {c.output_value(op, 0)});
  n->attrs["perm"] = perm;
}

// DEPTH_TO_SPACE (NHWC): y[n, h*b+i, w*b+j, c] = x[n, h, w, (i*b+j)*C + c], pure
// data movement: Reshape to [N,H,W,b,b,C], swap W and the first b, Reshape to
// [N,H*b,W*b,C].
void depth_to_space(ImportContext& c, const Operator& op) {
  c.require_arity(op, 1, 1, 1);
  const Tensor &x = c.input(op, 0), &y = c.output(op, 0);
  c.require_same_quantization(op, x, y);
  c.require_rank(op, x, 4);
  const int64_t b = c.options<fb::DepthToSpaceOptions>(op)->block_size();
  if (b < 1 || x.shape[3] % (b * b) != 0)
    c.fail(op, "block size " + std::to_string(b) + " does not divide the " + std::to_string(x.shape[3]) +
                   " channels into b*b groups");
  const int64_t n = x.shape[0], h = x.shape[1], w = x.shape[2], ch = x.shape[3] / (b * b);
  if (y.shape != Shape{n, h * b, w * b, ch})
    c.fail(op, "output " + y.quoted() + " has shape " + shape_str(y.shape) + ", expected " +
                   shape_str({n, h * b, w * b, ch}));
  Value* split = c.temp(op, x.dtype, {n, h, w, b, b, ch}, "split");
  c.add(op, "Reshape", {c.value(op, 0), c.int64s(op, split->shape, "split_shape")}, {split}, "split");
  Value* moved = c.temp(op, x.dtype, {n, h, b, w, b, ch}, "moved");
  c.add(op, "Transpose", {split}, {moved}, "move")->attrs["perm"] = std::vector<int64_t>{0, 1, 3, 2, 4, 5};
  c.add(op, "Reshape", {moved, c.int64s(op, y.shape, "shape")}, {c.output_value(op, 0)}, "merge");
}

// An ONNX Slice with concrete starts/ends/steps on every axis, then a Reshape to
// the output tensor's shape (for STRIDED_SLICE's shrink_axis_mask).
void slice_to(ImportContext& c, const Operator& op, const std::vector<int64_t>& starts,
              const std::vector<int64_t>& ends, const std::vector<int64_t>& steps) {
  const Tensor &x = c.input(op, 0), &y = c.output(op, 0);
  Shape sliced;
  for (size_t d = 0; d < x.shape.size(); ++d) {
    // Elements start, start+step, ... strictly before end (ends are already clamped).
    const int64_t n = steps[d] > 0 ? (ends[d] - starts[d] + steps[d] - 1) / steps[d]
                                   : (starts[d] - ends[d] - steps[d] - 1) / -steps[d];
    sliced.push_back(std::max<int64_t>(0, n));
  }
  if (shape_elements(sliced) != shape_elements(y.shape))
    c.fail(op, "the slice gives " + shape_str(sliced) + " but the output is " + shape_str(y.shape));
  std::vector<int64_t> onnx_ends = ends, axes;
  for (size_t d = 0; d < ends.size(); ++d) {
    axes.push_back(int64_t(d));
    if (steps[d] < 0 && ends[d] < 0) onnx_ends[d] = -x.shape[d] - 1;  // "before index 0"
  }
  Value* yv = c.output_value(op, 0);
  Value* out = sliced == y.shape ? yv : c.temp(op, x.dtype, sliced, "sliced");
  c.add(op, "Slice",
        {c.value(op, 0), c.int64s(op, starts, "starts"), c.int64s(op, onnx_ends, "ends"), c.int64s(op, axes, "axes"),
         c.int64s(op, steps, "steps")},
        {out});
  if (out != yv) c.add(op, "Reshape", {out, c.int64s(op, y.shape, "shape")}, {yv}, "shape");
}

void slice(ImportContext& c, const Operator& op) {
  c.require_arity(op, 3, 3, 1);
  const Tensor &x = c.input(op, 0), &y = c.output(op, 0);
  c.require_same_quantization(op, x, y);
  const auto begin = const_ints(c, op, 1), size = const_ints(c, op, 2);
  const size_t rank = x.shape.size();
  if (begin.size() != rank || size.size() != rank) c.fail(op, "begin and size must have one entry per axis");
  std::vector<int64_t> starts, ends, steps(rank, 1);
  for (size_t d = 0; d < rank; ++d) {
    const int64_t e = size[d] == -1 ? x.shape[d] : begin[d] + size[d];
    if (begin[d] < 0 || size[d] < -1 || e > x.shape[d]) c.fail(op, "begin/size are out of range");
    starts.push_back(begin[d]);
    ends.push_back(e);
  }
  slice_to(c, op, starts, ends, steps);
}

void strided_slice(ImportContext& c, const Operator& op) {
  c.require_arity(op, 3, 4, 1);
  const Tensor &x = c.input(op, 0), &y = c.output(op, 0);
  c.require_same_quantization(op, x, y);
  const auto* o = c.options<fb::StridedSliceOptions>(op);
  if (o->ellipsis_mask() != 0 || o->new_axis_mask() != 0)
    c.fail(op, "ellipsis_mask and new_axis_mask are not supported");
  const size_t rank = x.shape.size();
  const auto begin = const_ints(c, op, 1), end = const_ints(c, op, 2);
  const auto strides = c.has_input(op, 3) ? const_ints(c, op, 3) : std::vector<int64_t>(rank, 1);
  if (begin.size() != rank || end.size() != rank || strides.size() != rank)
    c.fail(op, "begin, end and strides must have one entry per axis");
  std::vector<int64_t> starts, ends;
  for (size_t d = 0; d < rank; ++d) {
    const int64_t dim = x.shape[d], step = strides[d];
    if (step == 0) c.fail(op, "a stride is 0");
    const bool shrink = (o->shrink_axis_mask() >> d) & 1;
    if (shrink && step < 0) c.fail(op, "shrink_axis_mask with a negative stride is not supported");
    // TFLite's StridedSliceStartForAxis / StridedSliceEndForAxis: a negative index
    // counts from the end, then the index is clamped to the range the step can
    // visit, then a mask takes the whole axis. A shrunk axis keeps one element;
    // with `offset`, end is relative to the (adjusted) start.
    auto clamp = [&](int64_t v) {
      if (v < 0) v += dim;
      return step > 0 ? std::clamp<int64_t>(v, 0, dim) : std::clamp<int64_t>(v, -1, dim - 1);
    };
    int64_t s = clamp(begin[d]);
    if ((o->begin_mask() >> d) & 1) s = step > 0 ? 0 : dim - 1;
    int64_t e;
    if (shrink) {
      e = s >= dim ? s : s + 1;
    } else {
      e = clamp(o->offset() ? end[d] + s : end[d]);
      if ((o->end_mask() >> d) & 1) e = step > 0 ? dim : -1;
    }
    starts.push_back(s);
    ends.push_back(e);
  }
  slice_to(c, op, starts, ends, strides);
}

// SPLIT: (axis, x) -> num_splits equal parts.
void split(ImportContext& c, const Operator& op) {
  c.require_arity(op, 2, 2, op.outputs.size());
  const Tensor& x = c.input(op, 1);
  const auto axis_v = const_ints(c, op, 0);
  if (axis_v.size() != 1) c.fail(op, "axis must be one element");
  const int64_t axis = normalize_axis(c, op, axis_v[0], x.shape.size());
  const int64_t n = int64_t(op.outputs.size());
  if (n == 0 || x.shape[axis] % n != 0) c.fail(op, "the axis does not split into " + std::to_string(n) + " parts");
  std::vector<Value*> outs;
  for (size_t i = 0; i < op.outputs.size(); ++i) {
    c.require_same_quantization(op, x, c.output(op, i));
    Shape s = x.shape;
    s[axis] /= n;
    if (c.output(op, i).shape != s) c.fail(op, "output " + std::to_string(i) + " has the wrong shape");
    outs.push_back(c.output_value(op, i));
  }
  Node* node = c.add(op, "Split", {c.value(op, 1), c.int64s(op, std::vector<int64_t>(n, x.shape[axis] / n), "split")},
                     outs);
  node->attrs["axis"] = axis;
}

// PACK: N tensors of one shape stacked along a new axis.
void pack(ImportContext& c, const Operator& op) {
  if (op.inputs.empty() || op.outputs.size() != 1) c.fail(op, "needs at least one input and one output");
  const Tensor& y = c.output(op, 0);
  const auto* o = c.options<fb::PackOptions>(op);
  const int64_t axis = normalize_axis(c, op, o->axis(), y.shape.size());
  Shape one = y.shape;
  one[axis] = 1;
  std::vector<Value*> parts;
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    const Tensor& t = c.input(op, i);
    if (shape_elements(t.shape) != shape_elements(one)) c.fail(op, "input " + std::to_string(i) + " has the wrong size");
    Value* r = c.temp(op, y.dtype, one, "expanded");
    c.add(op, "Reshape", {requantized_input(c, op, i, y), c.int64s(op, one, "shape")}, {r}, "expand_" + std::to_string(i));
    parts.push_back(r);
  }
  if (int64_t(parts.size()) != y.shape[axis]) c.fail(op, "the output does not have one slice per input");
  Node* n = c.add(op, "Concat", parts, {c.output_value(op, 0)});
  n->attrs["axis"] = axis;
}

// UNPACK: one tensor split along an axis into slices without that axis.
void unpack(ImportContext& c, const Operator& op) {
  c.require_arity(op, 1, 1, op.outputs.size());
  const Tensor& x = c.input(op, 0);
  const auto* o = c.options<fb::UnpackOptions>(op);
  const int64_t axis = normalize_axis(c, op, o->axis(), x.shape.size());
  if (int64_t(op.outputs.size()) != x.shape[axis]) c.fail(op, "needs one output per slice of the axis");
  Shape part = x.shape;
  part[axis] = 1;
  std::vector<Value*> parts;
  for (size_t i = 0; i < op.outputs.size(); ++i) parts.push_back(c.temp(op, x.dtype, part, "part"));
  Node* s = c.add(op, "Split", {c.value(op, 0), c.int64s(op, std::vector<int64_t>(parts.size(), 1), "split")}, parts);
  s->attrs["axis"] = axis;
  for (size_t i = 0; i < op.outputs.size(); ++i) {
    const Tensor& y = c.output(op, i);
    c.require_same_quantization(op, x, y);
    if (shape_elements(y.shape) != shape_elements(part)) c.fail(op, "output " + std::to_string(i) + " has the wrong size");
    c.add(op, "Reshape", {parts[i], c.int64s(op, y.shape, "shape")}, {c.output_value(op, i)}, "squeeze_" + std::to_string(i));
  }
}

// RESIZE_NEAREST_NEIGHBOR on any dtype: pure data movement, so two Gathers (rows,
// then columns) with the source indices TFLite's GetNearestNeighbor computes,
// evaluated now in the same float arithmetic.
int64_t nearest_source(int64_t out_index, int64_t in_size, int64_t out_size, bool align_corners, bool half_pixel) {
  const float scale = (align_corners && out_size > 1) ? float(in_size - 1) / float(out_size - 1)
                                                      : float(in_size) / float(out_size);
  const float offset = half_pixel ? 0.5f : 0.0f;
  const float v = (float(out_index) + offset) * scale;
  int64_t k = std::min<int64_t>(align_corners ? int64_t(std::round(v)) : int64_t(std::floor(v)), in_size - 1);
  if (half_pixel) k = std::max<int64_t>(0, k);
  return k;
}

void resize_nearest_neighbor(ImportContext& c, const Operator& op) {
  c.require_arity(op, 2, 2, 1);
  const Tensor &x = c.input(op, 0), &y = c.output(op, 0);
  c.require_same_quantization(op, x, y);
  c.require_rank(op, x, 4);
  c.require_rank(op, y, 4);
  const auto* o = c.options<fb::ResizeNearestNeighborOptions>(op, false);
  const bool align_corners = o && o->align_corners(), half_pixel = o && o->half_pixel_centers();
  const auto size = const_ints(c, op, 1);
  if (size.size() != 2 || size[0] != y.shape[1] || size[1] != y.shape[2] || y.shape[0] != x.shape[0] ||
      y.shape[3] != x.shape[3] || size[0] <= 0 || size[1] <= 0 || x.shape[1] <= 0 || x.shape[2] <= 0)
    c.fail(op, "the size input does not match the output shape");
  std::vector<int64_t> rows, cols;
  for (int64_t i = 0; i < y.shape[1]; ++i) rows.push_back(nearest_source(i, x.shape[1], y.shape[1], align_corners, half_pixel));
  for (int64_t j = 0; j < y.shape[2]; ++j) cols.push_back(nearest_source(j, x.shape[2], y.shape[2], align_corners, half_pixel));
  Value* r = c.temp(op, x.dtype, {x.shape[0], y.shape[1], x.shape[2], x.shape[3]}, "rows");
  Node* g1 = c.add(op, "Gather", {c.value(op, 0), c.int64s(op, rows, "row_indices")}, {r}, "rows");
  g1->attrs["axis"] = int64_t(1);
  Node* g2 = c.add(op, "Gather", {r, c.int64s(op, cols, "column_indices")}, {c.output_value(op, 0)}, "columns");
  g2->attrs["axis"] = int64_t(2);
}

}  // namespace

void register_layout_ops() {
  using B = fb::BuiltinOperator;
  register_op(B::RESHAPE, OpFlavor::Any, [](ImportContext& c, const Operator& op) { reshape(c, op, 2); });
  register_op(B::SQUEEZE, OpFlavor::Any, [](ImportContext& c, const Operator& op) { reshape(c, op, 1); });
  register_op(B::EXPAND_DIMS, OpFlavor::Any, [](ImportContext& c, const Operator& op) { reshape(c, op, 2); });
  register_op(B::QUANTIZE, OpFlavor::Any, quantize);
  register_op(B::DEQUANTIZE, OpFlavor::Any, dequantize);
  register_op(B::DENSIFY, OpFlavor::Any, densify_op);
  register_op(B::CONCATENATION, OpFlavor::Any, concatenation);
  register_op(B::PAD, OpFlavor::Any, [](ImportContext& c, const Operator& op) { pad(c, op, false); });
  register_op(B::PADV2, OpFlavor::Any, [](ImportContext& c, const Operator& op) { pad(c, op, true); });
  register_op(B::TRANSPOSE, OpFlavor::Any, transpose);
  register_op(B::DEPTH_TO_SPACE, OpFlavor::Any, depth_to_space);
  register_op(B::SLICE, OpFlavor::Any, slice);
  register_op(B::STRIDED_SLICE, OpFlavor::Any, strided_slice);
  register_op(B::SPLIT, OpFlavor::Any, split);
  register_op(B::PACK, OpFlavor::Any, pack);
  register_op(B::UNPACK, OpFlavor::Any, unpack);
  register_op(B::RESIZE_NEAREST_NEIGHBOR, OpFlavor::Any, resize_nearest_neighbor);
}

}  // namespace kiln::tflite
