// Float32 TFLite operators -> ONNX-style IR ops.
//
// Kiln's float kernels for spatial ops are NCHW: a float spatial operator becomes
// Transpose(NHWC -> NCHW), the ONNX op, Transpose(NCHW -> NHWC), and folding
// cancels the Transpose pair between two such operators (fold/rewrites.cpp).
// Weights are transposed at compile time (constant views, no copy). Fused
// activations become the ONNX activation op after the operator.

#include "tflite/import_context.h"
#include "util/quoted.h"

namespace kiln::tflite {

namespace fb = kiln::tflite_fb;

namespace {

const std::vector<int64_t> kToNchw{0, 3, 1, 2};
const std::vector<int64_t> kToNhwc{0, 2, 3, 1};

Shape permuted(const Shape& s, const std::vector<int64_t>& perm) {
  Shape out;
  for (int64_t p : perm) out.push_back(s[p]);
  return out;
}

Value* transposed(ImportContext& c, const Operator& op, Value* v, const std::vector<int64_t>& perm,
                  const std::string& what) {
  Value* t = c.temp(op, v->dtype, permuted(v->shape, perm), what);
  Node* n = c.add(op, "Transpose", {v}, {t}, what);
  n->attrs["perm"] = perm;
  return t;
}

Value* float_const(ImportContext& c, const Operator& op, float v, const std::string& what) {
  return c.constant(op, Constant::from_floats({}, {v}), what);
}

// Applies a fused activation to `v` (producing `out`, or a new value when null).
Value* activation(ImportContext& c, const Operator& op, fb::ActivationFunctionType act, Value* v, Value* out) {
  auto target = [&]() { return out ? out : c.temp(op, v->dtype, v->shape, "activated"); };
  switch (act) {
    case fb::ActivationFunctionType::NONE:
      if (!out) return v;
      c.add(op, "Identity", {v}, {out}, "identity");
      return out;
    case fb::ActivationFunctionType::RELU: {
      Value* r = target();
      c.add(op, "Relu", {v}, {r}, "relu");
      return r;
    }
    case fb::ActivationFunctionType::RELU6:
    case fb::ActivationFunctionType::RELU_N1_TO_1: {
      const bool six = act == fb::ActivationFunctionType::RELU6;
      Value* r = target();
      c.add(op, "Clip", {v, float_const(c, op, six ? 0.0f : -1.0f, "min"), float_const(c, op, six ? 6.0f : 1.0f, "max")},
            {r}, "clip");
      return r;
    }
    case fb::ActivationFunctionType::TANH: {
      Value* r = target();
      c.add(op, "Tanh", {v}, {r}, "tanh");
      return r;
    }
    default: c.fail(op, "fused activation SIGN_BIT is not supported");
  }
}

void check_float(ImportContext& c, const Operator& op, std::initializer_list<const Tensor*> ts) {
  for (const Tensor* t : ts) c.require_dtype(op, *t, DType::Float32);
}

// The optional constant float bias at input `index` (2 for CONV_2D and the like,
// 3 for TRANSPOSE_CONV), of `channels` elements.
Value* float_bias(ImportContext& c, const Operator& op, int64_t channels, size_t index = 2) {
  if (!c.has_input(op, index)) return nullptr;
  const Tensor& b = c.input(op, index);
  c.constant_input(op, index);
  c.require_dtype(op, b, DType::Float32);
  if (b.shape != Shape{channels}) c.fail(op, "bias " + b.quoted() + " must be [" + std::to_string(channels) + "]");
  return c.value(op, index);
}

// NHWC x -> NCHW op -> activation -> NHWC y.
void spatial(ImportContext& c, const Operator& op, const std::string& onnx_op, std::vector<Value*> extra_inputs,
             const std::map<std::string, AttrValue>& attrs, fb::ActivationFunctionType act, int64_t out_channels) {
  const Tensor& y = c.output(op, 0);
  Value* x = transposed(c, op, c.value(op, 0), kToNchw, "to_nchw");
  Value* z = c.temp(op, DType::Float32, {y.shape[0], out_channels, y.shape[1], y.shape[2]}, "nchw");
  std::vector<Value*> ins{x};
  ins.insert(ins.end(), extra_inputs.begin(), extra_inputs.end());
  Node* n = c.add(op, onnx_op, ins, {z});
  n->attrs = attrs;
  Value* a = activation(c, op, act, z, nullptr);
  Node* back = c.add(op, "Transpose", {a}, {c.output_value(op, 0)}, "to_nhwc");
  back->attrs["perm"] = kToNhwc;
}

void conv_2d(ImportContext& c, const Operator& op) {
  c.require_arity(op, 2, 3, 1);
  const Tensor &x = c.input(op, 0), &w = c.input(op, 1), &y = c.output(op, 0);
  check_float(c, op, {&x, &w, &y});
  c.require_rank(op, x, 4);
  c.require_rank(op, w, 4);
  c.require_rank(op, y, 4);
  const auto* o = c.options<fb::Conv2DOptions>(op);
  const int64_t cin = x.shape[3], cout = w.shape[0], wcin = w.shape[3];
  if (wcin <= 0 || cin < wcin || cin % wcin != 0 || cout <= 0 || cout % (cin / wcin) != 0 || y.shape[3] != cout)
    c.fail(op, "filter " + shape_str(w.shape) + " does not fit input " + shape_str(x.shape));
  Window2D win = window_2d(c, op, x, y, o->padding(), w.shape[1], w.shape[2], o->stride_h(), o->stride_w(),
                      o->dilation_h_factor(), o->dilation_w_factor());
  std::vector<Value*> extra{c.constant(op, c.constant_input(op, 1)->transposed(kToNchw), "weights_oihw")};
  if (Value* b = float_bias(c, op, cout)) extra.push_back(b);
  spatial(c, op, "Conv", extra,
          {{"strides", win.strides}, {"dilations", win.dilations}, {"pads", win.pads}, {"group", cin / wcin},
           {"kernel_shape", std::vector<int64_t>{w.shape[1], w.shape[2]}}},
          o->fused_activation_function(), cout);
}

void depthwise_conv_2d(ImportContext& c, const Operator& op) {
  c.require_arity(op, 2, 3, 1);
  const Tensor &x = c.input(op, 0), &w = c.input(op, 1), &y = c.output(op, 0);
  check_float(c, op, {&x, &w, &y});
  c.require_rank(op, x, 4);
  c.require_rank(op, w, 4);
  c.require_rank(op, y, 4);
  const auto* o = c.options<fb::DepthwiseConv2DOptions>(op);
  const int64_t cin = x.shape[3], cout = w.shape[3];
  if (w.shape[0] != 1 || cin <= 0 || cout % cin != 0 || y.shape[3] != cout)
    c.fail(op, "filter " + shape_str(w.shape) + " does not fit input " + shape_str(x.shape));
  Window2D win = window_2d(c, op, x, y, o->padding(), w.shape[1], w.shape[2], o->stride_h(), o->stride_w(),
                      o->dilation_h_factor(), o->dilation_w_factor());
  // [1,KH,KW,Cout] -> ONNX grouped weights [Cout,1,KH,KW], one group per input channel.
  std::vector<Value*> extra{
      c.constant(op, c.constant_input(op, 1)->transposed({3, 0, 1, 2}), "weights_oihw")};
  if (Value* b = float_bias(c, op, cout)) extra.push_back(b);
  spatial(c, op, "Conv", extra,
          {{"strides", win.strides}, {"dilations", win.dilations}, {"pads", win.pads}, {"group", cin},
           {"kernel_shape", std::vector<int64_t>{w.shape[1], w.shape[2]}}},
          o->fused_activation_function(), cout);
}

void pool_2d(ImportContext& c, const Operator& op, const std::string& onnx_op) {
  c.require_arity(op, 1, 1, 1);
  const Tensor &x = c.input(op, 0), &y = c.output(op, 0);
  check_float(c, op, {&x, &y});
  c.require_rank(op, x, 4);
  c.require_rank(op, y, 4);
  const auto* o = c.options<fb::Pool2DOptions>(op);
  if (y.shape[3] != x.shape[3]) c.fail(op, "output channels differ from input channels");
  Window2D win = window_2d(c, op, x, y, o->padding(), o->filter_height(), o->filter_width(), o->stride_h(),
                      o->stride_w(), 1, 1);
  std::map<std::string, AttrValue> attrs{{"strides", win.strides},
                                         {"pads", win.pads},
                                         {"kernel_shape", std::vector<int64_t>{o->filter_height(), o->filter_width()}}};
  // TFLite averages over the taps inside the input only.
  if (onnx_op == "AveragePool") attrs["count_include_pad"] = int64_t(0);
  spatial(c, op, onnx_op, {}, attrs, o->fused_activation_function(), x.shape[3]);
}

void fully_connected(ImportContext& c, const Operator& op) {
  c.require_arity(op, 2, 3, 1);
  const Tensor &x = c.input(op, 0), &w = c.input(op, 1), &y = c.output(op, 0);
  check_float(c, op, {&x, &w, &y});
  c.require_rank(op, w, 2);
  c.constant_input(op, 1);
  const auto* o = c.options<fb::FullyConnectedOptions>(op, false);
  if (o && o->weights_format() != fb::FullyConnectedOptionsWeightsFormat::DEFAULT)
    c.fail(op, "shuffled weights are not supported");
  const int64_t nout = w.shape[0], k = w.shape[1], xe = shape_elements(x.shape);
  if (k <= 0 || xe % k != 0) c.fail(op, "input " + shape_str(x.shape) + " does not split into rows of " + std::to_string(k));
  const int64_t m = xe / k;
  if (shape_elements(y.shape) != m * nout) c.fail(op, "output " + y.quoted() + " has the wrong number of elements");
  Value* xv = c.value(op, 0);
  if (x.shape != Shape{m, k}) {
    Value* r = c.temp(op, DType::Float32, {m, k}, "rows");
    c.add(op, "Reshape", {xv, c.int64s(op, {m, k}, "rows_shape")}, {r}, "rows");
    xv = r;
  }
  std::vector<Value*> ins{xv, c.value(op, 1)};
  if (Value* b = float_bias(c, op, nout)) ins.push_back(b);
  Value* z = c.temp(op, DType::Float32, {m, nout}, "gemm");
  Node* n = c.add(op, "Gemm", ins, {z});
  n->attrs["transB"] = int64_t(1);
  Value* yv = c.output_value(op, 0);
  const auto act = o ? o->fused_activation_function() : fb::ActivationFunctionType::NONE;
  if (y.shape == Shape{m, nout}) {
    activation(c, op, act, z, yv);
  } else {
    Value* a = activation(c, op, act, z, nullptr);
    c.add(op, "Reshape", {a, c.int64s(op, y.shape, "out_shape")}, {yv}, "out");
  }
}

template <class Options>
void binary(ImportContext& c, const Operator& op, const std::string& onnx_op) {
  c.require_arity(op, 2, 2, 1);
  check_float(c, op, {&c.input(op, 0), &c.input(op, 1), &c.output(op, 0)});
  const auto* o = c.options<Options>(op, false);
  const auto act = o ? o->fused_activation_function() : fb::ActivationFunctionType::NONE;
  Value* yv = c.output_value(op, 0);
  Value* z = act == fb::ActivationFunctionType::NONE ? yv : c.temp(op, DType::Float32, yv->shape, "sum");
  c.add(op, onnx_op, {c.value(op, 0), c.value(op, 1)}, {z});
  if (z != yv) activation(c, op, act, z, yv);
}

void unary(ImportContext& c, const Operator& op, const std::string& onnx_op) {
  c.require_arity(op, 1, 1, 1);
  check_float(c, op, {&c.input(op, 0), &c.output(op, 0)});
  Node* n = nullptr;
  if (onnx_op == "Clip6" || onnx_op == "Clip1") {
    const bool six = onnx_op == "Clip6";
    n = c.add(op, "Clip",
              {c.value(op, 0), float_const(c, op, six ? 0.0f : -1.0f, "min"), float_const(c, op, six ? 6.0f : 1.0f, "max")},
              {c.output_value(op, 0)});
  } else {
    n = c.add(op, onnx_op, {c.value(op, 0)}, {c.output_value(op, 0)});
  }
  if (onnx_op == "LeakyRelu") n->attrs["alpha"] = double(c.options<fb::LeakyReluOptions>(op)->alpha());
}

void softmax(ImportContext& c, const Operator& op) {
  c.require_arity(op, 1, 1, 1);
  check_float(c, op, {&c.input(op, 0), &c.output(op, 0)});
  const float beta = c.options<fb::SoftmaxOptions>(op)->beta();
  Value* x = c.value(op, 0);
  if (beta != 1.0f) {
    Value* scaled = c.temp(op, DType::Float32, x->shape, "scaled");
    c.add(op, "Mul", {x, float_const(c, op, beta, "beta")}, {scaled}, "beta");
    x = scaled;
  }
  Node* n = c.add(op, "Softmax", {x}, {c.output_value(op, 0)});
  n->attrs["axis"] = int64_t(-1);
}

void mean(ImportContext& c, const Operator& op) {
  c.require_arity(op, 2, 2, 1);
  const Tensor &x = c.input(op, 0), &y = c.output(op, 0);
  check_float(c, op, {&x, &y});
  const Tensor& axes_t = c.input(op, 1);
  if (axes_t.dtype != DType::Int32 && axes_t.dtype != DType::Int64) c.fail(op, "axes must be int32");
  std::vector<int64_t> axes = c.constant_input(op, 1)->to_int64s();
  for (auto& a : axes) {
    if (a < -int64_t(x.shape.size()) || a >= int64_t(x.shape.size())) c.fail(op, "axis out of range");
    if (a < 0) a += int64_t(x.shape.size());
  }
  const auto* o = c.options<fb::ReducerOptions>(op, false);
  const bool keep = o && o->keep_dims();
  Node* n = c.add(op, "ReduceMean", {c.value(op, 0)}, {c.output_value(op, 0)});
  n->attrs["axes"] = axes;
  n->attrs["keepdims"] = int64_t(keep ? 1 : 0);
}

// RESIZE_BILINEAR (RESIZE_NEAREST_NEIGHBOR is data movement, ops_layout.cpp).
void resize_bilinear(ImportContext& c, const Operator& op) {
  c.require_arity(op, 2, 2, 1);
  const Tensor &x = c.input(op, 0), &y = c.output(op, 0);
  check_float(c, op, {&x, &y});
  c.require_rank(op, x, 4);
  c.require_rank(op, y, 4);
  const auto* o = c.options<fb::ResizeBilinearOptions>(op, false);
  const bool align_corners = o && o->align_corners(), half_pixel = o && o->half_pixel_centers();
  const auto size = c.constant_input(op, 1)->to_int64s();
  if (size.size() != 2 || size[0] != y.shape[1] || size[1] != y.shape[2] || y.shape[3] != x.shape[3])
    c.fail(op, "the size input does not match the output shape");
  // TFLite's source coordinate: align_corners maps corner to corner; half-pixel
  // centers shift by half a pixel; otherwise dst * in / out.
  std::map<std::string, AttrValue> attrs;
  attrs["mode"] = std::string("linear");
  attrs["coordinate_transformation_mode"] =
      std::string(align_corners ? "align_corners" : half_pixel ? "half_pixel" : "asymmetric");
  const std::vector<int64_t> sizes{y.shape[0], y.shape[3], y.shape[1], y.shape[2]};
  spatial(c, op, "Resize", {nullptr, nullptr, c.int64s(op, sizes, "sizes")}, attrs, fb::ActivationFunctionType::NONE,
          x.shape[3]);
}

void batch_matmul(ImportContext& c, const Operator& op) {
  c.require_arity(op, 2, 2, 1);
  const Tensor &a = c.input(op, 0), &b = c.input(op, 1), &y = c.output(op, 0);
  check_float(c, op, {&a, &b, &y});
  if (a.shape.size() < 2 || b.shape.size() < 2) c.fail(op, "inputs must have rank >= 2");
  const auto* o = c.options<fb::BatchMatMulOptions>(op, false);
  auto adjoint = [&](size_t i, const Tensor& t, bool adj) {
    Value* v = c.value(op, i);
    if (!adj) return v;
    std::vector<int64_t> perm;
    for (size_t d = 0; d < t.shape.size(); ++d) perm.push_back(int64_t(d));
    std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
    return transposed(c, op, v, perm, "adjoint_" + std::to_string(i));
  };
  Value* av = adjoint(0, a, o && o->adj_x());
  Value* bv = adjoint(1, b, o && o->adj_y());
  if (av->shape.back() != bv->shape[bv->shape.size() - 2]) c.fail(op, "inner dimensions differ");
  c.add(op, "MatMul", {av, bv}, {c.output_value(op, 0)});
}

// TRANSPOSE_CONV (output_shape, weights [O, kh, kw, I], input, optional bias).
// TFLite takes its padding from a forward convolution of the output's size
// (SAME: total (ceil(out / s) - 1) * s + k - out, the odd one at the end); each
// input pixel i adds its taps at i * s - pad_before, and what falls outside
// [0, out) is dropped. ONNX ConvTranspose does the same with pads [before, end]
// where end = s * (in - 1) + k - before - out, or, when that is negative, zero
// pads at the end and output_padding -end (rows that only the bias reaches).
void transpose_conv(ImportContext& c, const Operator& op) {
  c.require_arity(op, 3, 4, 1);
  const Tensor &w = c.input(op, 1), &x = c.input(op, 2), &y = c.output(op, 0);
  check_float(c, op, {&w, &x, &y});
  c.require_rank(op, x, 4);
  c.require_rank(op, w, 4);
  c.require_rank(op, y, 4);
  const auto* o = c.options<fb::TransposeConvOptions>(op);
  const std::vector<int64_t> out_shape = c.constant_input(op, 0)->to_int64s();
  if (out_shape != y.shape)
    c.fail(op, "output_shape " + shape_str(out_shape) + " differs from the output's shape " + shape_str(y.shape));
  const int64_t cout = w.shape[0], kh = w.shape[1], kw = w.shape[2];
  if (w.shape[3] != x.shape[3] || y.shape[3] != cout || y.shape[0] != x.shape[0])
    c.fail(op, "filter " + shape_str(w.shape) + " does not fit input " + shape_str(x.shape) + " and output " +
                   shape_str(y.shape));
  const int64_t strides[2] = {o->stride_h(), o->stride_w()};
  if (strides[0] <= 0 || strides[1] <= 0) c.fail(op, "strides must be positive");
  if (o->padding() != fb::Padding::SAME && o->padding() != fb::Padding::VALID) c.fail(op, "unknown padding");
  const int64_t k[2] = {kh, kw};
  std::vector<int64_t> pads(4, 0), out_pad(2, 0);
  for (int d = 0; d < 2; ++d) {
    const int64_t in = x.shape[size_t(1 + d)], out = y.shape[size_t(1 + d)];
    const AxisPadding fwd = tflite_padding(o->padding(), out, k[d], strides[d], 1);
    if (fwd.out != in)
      c.fail(op, "an input of size " + std::to_string(in) + " does not give an output of " + std::to_string(out) +
                     " with this filter, stride and padding");
    const int64_t end = strides[d] * (in - 1) + k[d] - fwd.before - out;
    pads[size_t(d)] = fwd.before;
    pads[size_t(2 + d)] = std::max<int64_t>(end, 0);
    out_pad[size_t(d)] = std::max<int64_t>(-end, 0);
  }
  // [O, kh, kw, I] -> ONNX's [I, O, kh, kw] (one group).
  std::vector<Value*> ins{transposed(c, op, c.value(op, 2), kToNchw, "to_nchw"),
                          c.constant(op, c.constant_input(op, 1)->transposed({3, 0, 1, 2}), "weights_iohw")};
  if (Value* b = float_bias(c, op, cout, 3)) ins.push_back(b);
  Value* z = c.temp(op, DType::Float32, {y.shape[0], cout, y.shape[1], y.shape[2]}, "nchw");
  Node* n = c.add(op, "ConvTranspose", ins, {z});
  n->attrs["strides"] = std::vector<int64_t>{strides[0], strides[1]};
  n->attrs["pads"] = pads;
  n->attrs["output_padding"] = out_pad;
  n->attrs["kernel_shape"] = std::vector<int64_t>{kh, kw};
  Value* a = activation(c, op, o->fused_activation_function(), z, nullptr);
  c.add(op, "Transpose", {a}, {c.output_value(op, 0)}, "to_nhwc")->attrs["perm"] = kToNhwc;
}

}  // namespace

void register_float_ops() {
  using B = fb::BuiltinOperator;
  const auto F = OpFlavor::Float;
  register_op(B::CONV_2D, F, conv_2d);
  register_op(B::DEPTHWISE_CONV_2D, F, depthwise_conv_2d);
  register_op(B::FULLY_CONNECTED, F, fully_connected);
  register_op(B::AVERAGE_POOL_2D, F, [](ImportContext& c, const Operator& op) { pool_2d(c, op, "AveragePool"); });
  register_op(B::MAX_POOL_2D, F, [](ImportContext& c, const Operator& op) { pool_2d(c, op, "MaxPool"); });
  register_op(B::ADD, F, [](ImportContext& c, const Operator& op) { binary<fb::AddOptions>(c, op, "Add"); });
  register_op(B::SUB, F, [](ImportContext& c, const Operator& op) { binary<fb::SubOptions>(c, op, "Sub"); });
  register_op(B::MUL, F, [](ImportContext& c, const Operator& op) { binary<fb::MulOptions>(c, op, "Mul"); });
  register_op(B::DIV, F, [](ImportContext& c, const Operator& op) { binary<fb::DivOptions>(c, op, "Div"); });
  register_op(B::SOFTMAX, F, softmax);
  register_op(B::MEAN, F, mean);
  register_op(B::LOGISTIC, F, [](ImportContext& c, const Operator& op) { unary(c, op, "Sigmoid"); });
  register_op(B::TANH, F, [](ImportContext& c, const Operator& op) { unary(c, op, "Tanh"); });
  register_op(B::RELU, F, [](ImportContext& c, const Operator& op) { unary(c, op, "Relu"); });
  register_op(B::RELU6, F, [](ImportContext& c, const Operator& op) { unary(c, op, "Clip6"); });
  register_op(B::RELU_N1_TO_1, F, [](ImportContext& c, const Operator& op) { unary(c, op, "Clip1"); });
  register_op(B::LEAKY_RELU, F, [](ImportContext& c, const Operator& op) { unary(c, op, "LeakyRelu"); });
  register_op(B::HARD_SWISH, F, [](ImportContext& c, const Operator& op) { unary(c, op, "HardSwish"); });
  register_op(B::RESIZE_BILINEAR, F, resize_bilinear);
  register_op(B::BATCH_MATMUL, F, batch_matmul);
  register_op(B::TRANSPOSE_CONV, OpFlavor::Any, transpose_conv);  // input 0 is the int32 output shape
}

}  // namespace kiln::tflite
