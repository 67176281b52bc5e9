// Int8 TFLite operators -> the integer IR of docs/quantization.md (KilnQ* ops, NHWC).
//
// Every number the kernels need is decided here from the file's float32 scales
// exactly as TFLite derives it (requant_scale in double from the float32 scales,
// clamp bounds from the fused activation); the lowerings only convert them.

#include <cmath>
#include <stdexcept>
#include <tuple>

#include "ir/kiln_ops.h"
#include "tflite/import_context.h"
#include "tflite/lookup_tables.h"
#include "util/quoted.h"

namespace kiln::tflite {

namespace fb = kiln::tflite_fb;

namespace {

// Weight scales per output channel (one entry when per-tensor), checking that the
// weights are symmetric and quantized along `channel_axis` when per-channel.
std::vector<double> requant_scales(ImportContext& c, const Operator& op, const Tensor& x, const Tensor& w,
                                   const Tensor& y, int channel_axis) {
  const auto& q = w.quant;
  if (q.scale.empty()) c.fail(op, "weights " + w.quoted() + " are not quantized");
  if (q.scale.size() > 1 && q.quantized_dimension != channel_axis)
    c.fail(op, "weights " + w.quoted() + " are quantized along axis " + std::to_string(q.quantized_dimension) +
                   ", expected the output-channel axis " + std::to_string(channel_axis));
  for (int64_t z : q.zero_point)
    if (z != 0) c.fail(op, "weights " + w.quoted() + " have zero point " + std::to_string(z) + " (must be symmetric)");
  const double sx = c.scale(op, x), sy = c.scale(op, y);
  std::vector<double> out;
  for (float sw : q.scale) out.push_back(sx * double(sw) / sy);
  return out;
}

// The int32 bias [channels] at input 2, or null when omitted.
Value* bias_value(ImportContext& c, const Operator& op, int64_t channels) {
  if (!c.has_input(op, 2)) return nullptr;
  const Tensor& b = c.input(op, 2);
  c.constant_input(op, 2);
  c.require_dtype(op, b, DType::Int32);
  if (b.shape != Shape{channels})
    c.fail(op, "bias " + b.quoted() + " has shape " + shape_str(b.shape) + ", expected [" + std::to_string(channels) +
                   "]");
  return c.value(op, 2);
}

void check_int8_io(ImportContext& c, const Operator& op, std::initializer_list<const Tensor*> ts) {
  for (const Tensor* t : ts) {
    c.require_dtype(op, *t, DType::Int8);
    c.zero_point(op, *t);  // per-tensor quantization present and in range
  }
}

// The requantization of an op with weights: zero points, the fused activation's
// clamp and the per-channel scales.
ops::QuantIO quant_io(ImportContext& c, const Operator& op, const Tensor& x, const Tensor& w, const Tensor& y,
                      fb::ActivationFunctionType act, int channel_axis) {
  ops::QuantIO q;
  q.requant_scale = requant_scales(c, op, x, w, y, channel_axis);
  q.x_zero_point = c.zero_point(op, x);
  q.y_zero_point = c.zero_point(op, y);
  std::tie(q.act_min, q.act_max) = c.activation_range_int8(op, act, y);
  return q;
}

void conv_2d(ImportContext& c, const Operator& op) {
  c.require_arity(op, 2, 3, 1);
  const Tensor &x = c.input(op, 0), &w = c.input(op, 1), &y = c.output(op, 0);
  const auto* o = c.options<fb::Conv2DOptions>(op);
  c.require_rank(op, x, 4);
  c.require_rank(op, w, 4);
  c.require_rank(op, y, 4);
  c.constant_input(op, 1);
  c.require_dtype(op, w, DType::Int8);
  check_int8_io(c, op, {&x, &y});
  const int64_t cin = x.shape[3], cout = w.shape[0], wcin = w.shape[3];
  if (wcin <= 0 || cin < wcin || cin % wcin != 0 || cout <= 0 || cout % (cin / wcin) != 0)
    c.fail(op, "filter " + shape_str(w.shape) + " does not fit input channels " + std::to_string(cin));
  if (y.shape[3] != cout) c.fail(op, "output channels " + std::to_string(y.shape[3]) + " != filters " + std::to_string(cout));
  Window2D win = window_2d(c, op, x, y, o->padding(), w.shape[1], w.shape[2], o->stride_h(), o->stride_w(),
                      o->dilation_h_factor(), o->dilation_w_factor());
  std::vector<Value*> ins{c.value(op, 0), c.value(op, 1)};
  if (Value* b = bias_value(c, op, cout)) ins.push_back(b);
  Node* n = c.add(op, "KilnQConv2D", ins, {c.output_value(op, 0)});
  ops::set_attrs(*n, ops::QConv2D{win, cin / wcin,
                                  quant_io(c, op, x, w, y, o->fused_activation_function(), 0)});
}

void depthwise_conv_2d(ImportContext& c, const Operator& op) {
  c.require_arity(op, 2, 3, 1);
  const Tensor &x = c.input(op, 0), &w = c.input(op, 1), &y = c.output(op, 0);
  const auto* o = c.options<fb::DepthwiseConv2DOptions>(op);
  c.require_rank(op, x, 4);
  c.require_rank(op, w, 4);
  c.require_rank(op, y, 4);
  c.require_dtype(op, w, DType::Int8);
  check_int8_io(c, op, {&x, &y});
  ConstantPtr wc = c.constant_input(op, 1);
  const int64_t cin = x.shape[3], cout = w.shape[3];
  if (w.shape[0] != 1) c.fail(op, "filter " + shape_str(w.shape) + " must have a leading 1");
  if (cin <= 0 || cout % cin != 0)
    c.fail(op, "filter channels " + std::to_string(cout) + " are not a multiple of input channels " + std::to_string(cin));
  if (y.shape[3] != cout) c.fail(op, "output channels " + std::to_string(y.shape[3]) + " != filter channels " + std::to_string(cout));
  Window2D win = window_2d(c, op, x, y, o->padding(), w.shape[1], w.shape[2], o->stride_h(), o->stride_w(),
                      o->dilation_h_factor(), o->dilation_w_factor());
  std::vector<Value*> ins{c.value(op, 0),
                          c.constant(op, wc->reshaped({w.shape[1], w.shape[2], cout}), "weights")};
  if (Value* b = bias_value(c, op, cout)) ins.push_back(b);
  Node* n = c.add(op, "KilnQDepthwiseConv2D", ins, {c.output_value(op, 0)});
  ops::set_attrs(*n, ops::QDepthwiseConv2D{win, cout / cin,
                                           quant_io(c, op, x, w, y, o->fused_activation_function(), 3)});
}

void fully_connected(ImportContext& c, const Operator& op) {
  c.require_arity(op, 2, 3, 1);
  const Tensor &x = c.input(op, 0), &w = c.input(op, 1), &y = c.output(op, 0);
  const auto* o = c.options<fb::FullyConnectedOptions>(op, false);
  if (o && o->weights_format() != fb::FullyConnectedOptionsWeightsFormat::DEFAULT)
    c.fail(op, "shuffled weights are not supported");
  c.require_rank(op, w, 2);
  c.require_dtype(op, w, DType::Int8);
  check_int8_io(c, op, {&x, &y});
  c.constant_input(op, 1);
  const int64_t nout = w.shape[0], k = w.shape[1];
  const int64_t xe = shape_elements(x.shape);
  if (k <= 0 || xe % k != 0)
    c.fail(op, "input " + shape_str(x.shape) + " does not split into rows of " + std::to_string(k));
  const int64_t m = xe / k;
  if (shape_elements(y.shape) != m * nout)
    c.fail(op, "output " + y.quoted() + " has shape " + shape_str(y.shape) + ", expected " + std::to_string(m) + "x" +
                   std::to_string(nout) + " elements");
  Value* xv = c.value(op, 0);
  if (x.shape != Shape{m, k}) {
    Value* r = c.temp(op, DType::Int8, {m, k}, "rows");
    c.add(op, "Reshape", {xv, c.int64s(op, {m, k}, "rows_shape")}, {r}, "rows");
    xv = r;
  }
  std::vector<Value*> ins{xv, c.value(op, 1)};
  if (Value* b = bias_value(c, op, nout)) ins.push_back(b);
  Value* yv = c.output_value(op, 0);
  Value* out = y.shape == Shape{m, nout} ? yv : c.temp(op, DType::Int8, {m, nout}, "matrix");
  Node* n = c.add(op, "KilnQFullyConnected", ins, {out});
  ops::set_attrs(*n, ops::QFullyConnected{quant_io(
                         c, op, x, w, y, o ? o->fused_activation_function() : fb::ActivationFunctionType::NONE, 0)});
  if (out != yv) c.add(op, "Reshape", {out, c.int64s(op, y.shape, "out_shape")}, {yv}, "out");
}

// ADD / SUB / MUL: numpy broadcasting, each side with its own quantization.
template <class Options>
void binary(ImportContext& c, const Operator& op, const char* ir_op) {
  c.require_arity(op, 2, 2, 1);
  const Tensor &a = c.input(op, 0), &b = c.input(op, 1), &y = c.output(op, 0);
  check_int8_io(c, op, {&a, &b, &y});
  const auto* o = c.options<Options>(op, false);
  Node* n = c.add(op, ir_op, {c.value(op, 0), c.value(op, 1)}, {c.output_value(op, 0)});
  ops::QBinary q;
  q.a_scale = double(c.scale(op, a));
  q.a_zero_point = c.zero_point(op, a);
  q.b_scale = double(c.scale(op, b));
  q.b_zero_point = c.zero_point(op, b);
  q.y_scale = double(c.scale(op, y));
  q.y_zero_point = c.zero_point(op, y);
  std::tie(q.act_min, q.act_max) =
      c.activation_range_int8(op, o ? o->fused_activation_function() : fb::ActivationFunctionType::NONE, y);
  ops::set_attrs(*n, q);
}

void pool_2d(ImportContext& c, const Operator& op, const char* ir_op) {
  c.require_arity(op, 1, 1, 1);
  const Tensor &x = c.input(op, 0), &y = c.output(op, 0);
  const auto* o = c.options<fb::Pool2DOptions>(op);
  c.require_rank(op, x, 4);
  c.require_rank(op, y, 4);
  check_int8_io(c, op, {&x, &y});
  if (c.scale(op, x) != c.scale(op, y) || c.zero_point(op, x) != c.zero_point(op, y))
    c.fail(op, "input and output must have the same quantization");
  if (y.shape[3] != x.shape[3]) c.fail(op, "output channels differ from input channels");
  Window2D win = window_2d(c, op, x, y, o->padding(), o->filter_height(), o->filter_width(), o->stride_h(),
                      o->stride_w(), 1, 1);
  Node* n = c.add(op, ir_op, {c.value(op, 0)}, {c.output_value(op, 0)});
  ops::QPool2D q;
  q.kernel_shape = {o->filter_height(), o->filter_width()};
  q.strides = win.strides;
  q.pads = win.pads;
  std::tie(q.act_min, q.act_max) = c.activation_range_int8(op, o->fused_activation_function(), y);
  ops::set_attrs(*n, q);
}

void softmax(ImportContext& c, const Operator& op) {
  c.require_arity(op, 1, 1, 1);
  const Tensor &x = c.input(op, 0), &y = c.output(op, 0);
  const auto* o = c.options<fb::SoftmaxOptions>(op);
  check_int8_io(c, op, {&x, &y});
  if (x.shape != y.shape || x.shape.empty()) c.fail(op, "input and output shapes differ (or are scalars)");
  // TFLite requires this output quantization for int8 softmax.
  if (std::fabs(c.scale(op, y) - 1.0f / 256) > 1e-6f || c.zero_point(op, y) != -128)
    c.fail(op, "int8 output must have scale 1/256 and zero point -128");
  Node* n = c.add(op, "KilnQSoftmax", {c.value(op, 0)}, {c.output_value(op, 0)});
  ops::set_attrs(*n, ops::QSoftmax{double(o->beta()), double(c.scale(op, x))});
}

void unary_lookup(ImportContext& c, const Operator& op) {
  c.require_arity(op, 1, 1, 1);
  const Tensor &x = c.input(op, 0), &y = c.output(op, 0);
  check_int8_io(c, op, {&x, &y});
  if (x.shape != y.shape) c.fail(op, "input and output shapes differ");
  const QuantParams in{c.scale(op, x), int32_t(c.zero_point(op, x))};
  const QuantParams out{c.scale(op, y), int32_t(c.zero_point(op, y))};
  LookupTable t;
  try {
    switch (fb::BuiltinOperator(op.code)) {
      case fb::BuiltinOperator::LOGISTIC:
        // TFLite's kernel writes probabilities on 1/256 with zero point -128.
        if (out.zero_point != -128) c.fail(op, "int8 output must have zero point -128");
        t = logistic_table(in);
        break;
      case fb::BuiltinOperator::TANH: t = tanh_table(in); break;
      case fb::BuiltinOperator::HARD_SWISH: t = hard_swish_table(in, out); break;
      case fb::BuiltinOperator::LEAKY_RELU:
        t = leaky_relu_table(in, out, c.options<fb::LeakyReluOptions>(op)->alpha());
        break;
      case fb::BuiltinOperator::RELU: t = relu_table(in, out, 0.0f, INFINITY); break;
      case fb::BuiltinOperator::RELU6: t = relu6_table(in); break;
      case fb::BuiltinOperator::RELU_N1_TO_1: t = relu_table(in, out, -1.0f, 1.0f); break;
      case fb::BuiltinOperator::QUANTIZE: t = requantize_table(in, out); break;
      default: c.fail(op, "no lookup table for this operator");
    }
  } catch (const std::invalid_argument& e) {
    c.fail(op, e.what());
  }
  add_lookup(c, op, c.value(op, 0), t, c.output_value(op, 0), "");
}


// An int8 Transpose of `v` by `perm` (data movement, same quantization).
Value* transposed_int8(ImportContext& c, const Operator& op, Value* v, const std::vector<int64_t>& perm,
                       const std::string& what) {
  Shape s;
  for (int64_t p : perm) s.push_back(v->shape[size_t(p)]);
  Value* t = c.temp(op, DType::Int8, s, what);
  Node* n = c.add(op, "Transpose", {v}, {t}, what);
  n->attrs["perm"] = perm;
  return t;
}

// MEAN: TFLite's QuantizedMeanOrSum. KilnQMean reduces one contiguous run of
// axes; other axis sets are moved to the end by a Transpose first (the kept
// axes keep their order, so the output's elements are in the same order).
void mean(ImportContext& c, const Operator& op) {
  c.require_arity(op, 2, 2, 1);
  const Tensor &x = c.input(op, 0), &y = c.output(op, 0);
  check_int8_io(c, op, {&x, &y});
  const Tensor& axes_t = c.input(op, 1);
  if (axes_t.dtype != DType::Int32) c.fail(op, "axes must be int32");
  c.options<fb::ReducerOptions>(op, false);  // present ones must be the right table
  const int64_t rank = int64_t(x.shape.size());
  std::vector<bool> reduced(size_t(rank), false);
  for (int64_t a : c.constant_input(op, 1)->to_int64s()) {
    if (a < -rank || a >= rank) c.fail(op, "axis " + std::to_string(a) + " is out of range for rank " + std::to_string(rank));
    reduced[size_t(a < 0 ? a + rank : a)] = true;
  }
  std::vector<int64_t> kept, gone;
  int64_t kept_elements = 1;
  for (int64_t d = 0; d < rank; ++d) {
    (reduced[size_t(d)] ? gone : kept).push_back(d);
    if (!reduced[size_t(d)]) kept_elements *= x.shape[size_t(d)];
  }
  if (gone.empty()) c.fail(op, "no axis to reduce");
  if (shape_elements(y.shape) != kept_elements)
    c.fail(op, "output " + y.quoted() + " has shape " + shape_str(y.shape) + ", expected " +
                   std::to_string(kept_elements) + " elements");
  Value* xv = c.value(op, 0);
  std::vector<int64_t> axes = gone;
  if (gone.back() - gone.front() + 1 != int64_t(gone.size())) {
    std::vector<int64_t> perm = kept;
    perm.insert(perm.end(), gone.begin(), gone.end());
    xv = transposed_int8(c, op, xv, perm, "reduced_last");
    axes.clear();
    for (size_t i = 0; i < gone.size(); ++i) axes.push_back(int64_t(kept.size() + i));
  }
  Node* n = c.add(op, "KilnQMean", {xv}, {c.output_value(op, 0)});
  ops::set_attrs(*n, ops::QMean{axes, c.zero_point(op, x), c.zero_point(op, y),
                                double(c.scale(op, x)) / double(c.scale(op, y))});
}

// RESIZE_BILINEAR: TFLite's ResizeBilinearInteger (input and output quantization
// equal: the kernel interpolates stored values).
void resize_bilinear(ImportContext& c, const Operator& op) {
  c.require_arity(op, 2, 2, 1);
  const Tensor &x = c.input(op, 0), &y = c.output(op, 0);
  check_int8_io(c, op, {&x, &y});
  c.require_rank(op, x, 4);
  c.require_rank(op, y, 4);
  if (c.scale(op, x) != c.scale(op, y) || c.zero_point(op, x) != c.zero_point(op, y))
    c.fail(op, "input and output must have the same quantization");
  const auto* o = c.options<fb::ResizeBilinearOptions>(op, false);
  const bool align_corners = o && o->align_corners(), half_pixel = o && o->half_pixel_centers();
  if (align_corners && half_pixel) c.fail(op, "align_corners and half_pixel_centers cannot both be set");
  const Tensor& size_tensor = c.input(op, 1);
  if (size_tensor.dtype != DType::Int32) c.fail(op, "the size input must be int32");
  const auto size = c.constant_input(op, 1)->to_int64s();
  if (size.size() != 2 || size[0] != y.shape[1] || size[1] != y.shape[2] || y.shape[0] != x.shape[0] ||
      y.shape[3] != x.shape[3] || size[0] <= 0 || size[1] <= 0 || x.shape[1] <= 0 || x.shape[2] <= 0)
    c.fail(op, "the size input does not match the output shape");
  Node* n = c.add(op, "KilnQResizeBilinear", {c.value(op, 0)}, {c.output_value(op, 0)});
  ops::set_attrs(*n, ops::QResizeBilinear{int64_t(align_corners), int64_t(half_pixel)});
}

// BATCH_MATMUL: an adjoint operand is transposed (int8 data movement), then
// TFLite's int8 BatchMatMul (per-tensor scales, no fused activation).
void batch_matmul(ImportContext& c, const Operator& op) {
  c.require_arity(op, 2, 2, 1);
  const Tensor &a = c.input(op, 0), &b = c.input(op, 1), &y = c.output(op, 0);
  check_int8_io(c, op, {&a, &b, &y});
  if (a.shape.size() < 2 || b.shape.size() < 2 || a.shape.size() > 5 || b.shape.size() > 5)
    c.fail(op, "inputs must have rank 2 to 5");
  const auto* o = c.options<fb::BatchMatMulOptions>(op, false);
  auto operand = [&](size_t i, bool adjoint) {
    Value* v = c.value(op, i);
    if (!adjoint) return v;
    std::vector<int64_t> perm;
    for (size_t d = 0; d < v->shape.size(); ++d) perm.push_back(int64_t(d));
    std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
    return transposed_int8(c, op, v, perm, "adjoint_" + std::to_string(i));
  };
  Value* av = operand(0, o && o->adj_x());
  Value* bv = operand(1, o && o->adj_y());
  if (av->shape.back() != bv->shape[bv->shape.size() - 2])
    c.fail(op, "inner dimensions differ: " + shape_str(av->shape) + " x " + shape_str(bv->shape));
  Node* n = c.add(op, "KilnQBatchMatMul", {av, bv}, {c.output_value(op, 0)});
  ops::set_attrs(*n, ops::QBatchMatMul{c.zero_point(op, a), c.zero_point(op, b), c.zero_point(op, y),
                                       double(c.scale(op, a)) * double(c.scale(op, b)) / double(c.scale(op, y)),
                                       -128, 127});
}

}  // namespace

Value* add_lookup(ImportContext& c, const Operator& op, Value* x, const std::array<int8_t, 256>& table, Value* out,
                  const std::string& what) {
  LookupTable t = table;
  if (x->producer && x->producer->op_type == "KilnQLookup" && x->producer->inputs.size() == 2 &&
      x->producer->inputs[1]->constant) {
    const std::vector<int64_t> first = x->producer->inputs[1]->constant->to_int64s();
    for (size_t k = 0; k < t.size(); ++k) t[k] = table[size_t(first[k] + 128)];
    x = x->producer->inputs[0];
  }
  if (!out) out = c.temp(op, DType::Int8, x->shape, what.empty() ? "lookup" : what);
  c.add(op, "KilnQLookup", {x, c.constant(op, table_constant(t), "table")}, {out}, what);
  return out;
}

void quantize_int8_to_int8(ImportContext& c, const Operator& op) { unary_lookup(c, op); }

void register_quantized_ops() {
  using B = fb::BuiltinOperator;
  register_op(B::CONV_2D, OpFlavor::Int8, conv_2d);
  register_op(B::DEPTHWISE_CONV_2D, OpFlavor::Int8, depthwise_conv_2d);
  register_op(B::FULLY_CONNECTED, OpFlavor::Int8, fully_connected);
  register_op(B::ADD, OpFlavor::Int8, [](ImportContext& c, const Operator& op) {
    binary<fb::AddOptions>(c, op, "KilnQAdd");
  });
  register_op(B::SUB, OpFlavor::Int8, [](ImportContext& c, const Operator& op) {
    binary<fb::SubOptions>(c, op, "KilnQSub");
  });
  register_op(B::MUL, OpFlavor::Int8, [](ImportContext& c, const Operator& op) {
    binary<fb::MulOptions>(c, op, "KilnQMul");
  });
  register_op(B::AVERAGE_POOL_2D, OpFlavor::Int8,
              [](ImportContext& c, const Operator& op) { pool_2d(c, op, "KilnQAvgPool2D"); });
  register_op(B::MAX_POOL_2D, OpFlavor::Int8,
              [](ImportContext& c, const Operator& op) { pool_2d(c, op, "KilnQMaxPool2D"); });
  register_op(B::SOFTMAX, OpFlavor::Int8, softmax);
  register_op(B::MEAN, OpFlavor::Int8, mean);
  register_op(B::RESIZE_BILINEAR, OpFlavor::Int8, resize_bilinear);
  register_op(B::BATCH_MATMUL, OpFlavor::Int8, batch_matmul);
  for (B code : {B::LOGISTIC, B::TANH, B::HARD_SWISH, B::LEAKY_RELU, B::RELU, B::RELU6, B::RELU_N1_TO_1})
    register_op(code, OpFlavor::Int8, unary_lookup);
}

}  // namespace kiln::tflite
