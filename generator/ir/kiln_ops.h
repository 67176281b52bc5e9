// Kiln's own operators, defined in one place (in the spirit of MLIR's operation
// definitions): each has a name, its operands and results with the dtypes they
// may take, its attributes with their types, and a verify function for what the
// types cannot say (ranges, shapes that must agree).
//
// Producers (tflite/, quant/, controlflow/, sequence/, schedule/) build the
// attributes of the integer ops through the typed structs below, never by
// writing attribute maps by hand; lowerings read them through the same structs.
// verify_graph (ir/verify_graph.h) checks every node of a Kiln operator against
// its definition between passes. docs/quantization.md describes what each
// integer op computes; this file is the contract's machine-checked half.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/graph.h"

namespace kiln::ops {

// ---- typed attributes ------------------------------------------------------------
// An attribute with a default that means something (strides 1, no padding, the
// full int8 clamp, zero point 0) may be omitted; the others (scales, axes, kernel
// shapes) are required.
inline constexpr bool kOptional = false;

// Each struct lists its attributes once, in visit(): set_attrs writes them on a
// node, get_attrs reads them back (a missing attribute keeps the member's default,
// a present one of the wrong type is an internal error), and the operator table
// derives the attribute list of a definition from the same visit.

// The requantization of an int8 op with one input zero point: y = clamp(zp_y +
// round(acc * requant_scale), act_min, act_max), one scale per output channel or
// one for all.
struct QuantIO {
  int64_t x_zero_point = 0;
  int64_t y_zero_point = 0;
  int64_t act_min = -128;
  int64_t act_max = 127;
  std::vector<double> requant_scale;
  template <class V>
  void visit(V&& v) {
    v("x_zero_point", x_zero_point, kOptional);
    v("y_zero_point", y_zero_point, kOptional);
    v("act_min", act_min, kOptional);
    v("act_max", act_max, kOptional);
    v("requant_scale", requant_scale);
  }
};

// The window of a 2-D operator over NHWC: strides and dilations [h, w], pads
// [top, left, bottom, right].
struct Window2D {
  std::vector<int64_t> strides{1, 1};
  std::vector<int64_t> dilations{1, 1};
  std::vector<int64_t> pads{0, 0, 0, 0};
  template <class V>
  void visit(V&& v) {
    v("strides", strides, kOptional);
    v("dilations", dilations, kOptional);
    v("pads", pads, kOptional);
  }
};

// KilnQConv2D: x [N,H,W,C] int8, w [Cout,KH,KW,C/group] int8, bias [Cout] int32,
// y [N,OH,OW,Cout]. input_nchw = 1: x is [N,C,H,W] instead (one group), the
// caller's layout absorbed by the first conv (docs/quantization.md, "Layout at
// the boundary").
struct QConv2D {
  Window2D window;
  int64_t group = 1;
  QuantIO quant;
  int64_t input_nchw = 0;
  template <class V>
  void visit(V&& v) {
    window.visit(v);
    v("group", group, kOptional);
    quant.visit(v);
    v("input_nchw", input_nchw, kOptional);
  }
};

// KilnQDepthwiseConv2D: x [N,H,W,C] int8, w [KH,KW,C*depth_multiplier] int8, bias int32.
struct QDepthwiseConv2D {
  Window2D window;
  int64_t depth_multiplier = 1;
  QuantIO quant;
  template <class V>
  void visit(V&& v) {
    window.visit(v);
    v("depth_multiplier", depth_multiplier, kOptional);
    quant.visit(v);
  }
};

// KilnQFullyConnected: x [M,K] int8, w [N,K] int8, bias [N] int32.
struct QFullyConnected {
  QuantIO quant;
  template <class V>
  void visit(V&& v) {
    quant.visit(v);
  }
};

// KilnQAdd / KilnQSub / KilnQMul: each side and the output with its own scale.
struct QBinary {
  double a_scale = 1.0, b_scale = 1.0, y_scale = 1.0;
  int64_t a_zero_point = 0, b_zero_point = 0, y_zero_point = 0;
  int64_t act_min = -128, act_max = 127;
  template <class V>
  void visit(V&& v) {
    v("a_scale", a_scale);
    v("a_zero_point", a_zero_point, kOptional);
    v("b_scale", b_scale);
    v("b_zero_point", b_zero_point, kOptional);
    v("y_scale", y_scale);
    v("y_zero_point", y_zero_point, kOptional);
    v("act_min", act_min, kOptional);
    v("act_max", act_max, kOptional);
  }
};

// KilnQAvgPool2D / KilnQMaxPool2D: input and output share their quantization.
struct QPool2D {
  std::vector<int64_t> kernel_shape;
  std::vector<int64_t> strides{1, 1};
  std::vector<int64_t> pads{0, 0, 0, 0};
  int64_t act_min = -128, act_max = 127;
  template <class V>
  void visit(V&& v) {
    v("kernel_shape", kernel_shape);
    v("strides", strides, kOptional);
    v("pads", pads, kOptional);
    v("act_min", act_min, kOptional);
    v("act_max", act_max, kOptional);
  }
};

// KilnQSoftmax: output on 1/256 with zero point -128 (TFLite's int8 softmax).
struct QSoftmax {
  double beta = 1.0;
  double x_scale = 1.0;
  template <class V>
  void visit(V&& v) {
    v("beta", beta, kOptional);
    v("x_scale", x_scale);
  }
};

// KilnQMean: the mean over one contiguous run of axes.
struct QMean {
  std::vector<int64_t> axes;
  int64_t x_zero_point = 0, y_zero_point = 0;
  double requant_scale = 1.0;
  template <class V>
  void visit(V&& v) {
    v("axes", axes);
    v("x_zero_point", x_zero_point, kOptional);
    v("y_zero_point", y_zero_point, kOptional);
    v("requant_scale", requant_scale);
  }
};

// KilnQResizeBilinear: TFLite's integer bilinear resize (same quantization in and out).
struct QResizeBilinear {
  int64_t align_corners = 0;
  int64_t half_pixel_centers = 0;
  template <class V>
  void visit(V&& v) {
    v("align_corners", align_corners, kOptional);
    v("half_pixel_centers", half_pixel_centers, kOptional);
  }
};

// KilnQBatchMatMul: per-tensor scales, no fused activation beyond the clamp.
struct QBatchMatMul {
  int64_t a_zero_point = 0, b_zero_point = 0, y_zero_point = 0;
  double requant_scale = 1.0;
  int64_t act_min = -128, act_max = 127;
  template <class V>
  void visit(V&& v) {
    v("a_zero_point", a_zero_point, kOptional);
    v("b_zero_point", b_zero_point, kOptional);
    v("y_zero_point", y_zero_point, kOptional);
    v("requant_scale", requant_scale);
    v("act_min", act_min, kOptional);
    v("act_max", act_max, kOptional);
  }
};

// KilnQQuantizeF32: float32 -> int8 with TFLite's rounding.
struct QQuantizeF32 {
  double y_scale = 1.0;
  int64_t y_zero_point = 0;
  template <class V>
  void visit(V&& v) {
    v("y_scale", y_scale);
    v("y_zero_point", y_zero_point, kOptional);
  }
};

// KilnQLstm: TFLite Micro's integer UNIDIRECTIONAL_SEQUENCE_LSTM; the four-gate
// scales are [input, forget, cell, output].
struct QLstm {
  int64_t time_major = 0;
  int64_t x_zero_point = 0, h_zero_point = 0;
  std::vector<double> input_fc_scale, recurrent_fc_scale;
  double forget_cell_scale = 1.0, input_cell_scale = 1.0, output_hidden_scale = 1.0;
  int64_t cell_scale_power = 0;
  int64_t cell_clip = 0;
  template <class V>
  void visit(V&& v) {
    v("time_major", time_major, kOptional);
    v("x_zero_point", x_zero_point, kOptional);
    v("h_zero_point", h_zero_point, kOptional);
    v("input_fc_scale", input_fc_scale);
    v("recurrent_fc_scale", recurrent_fc_scale);
    v("forget_cell_scale", forget_cell_scale);
    v("input_cell_scale", input_cell_scale);
    v("output_hidden_scale", output_hidden_scale);
    v("cell_scale_power", cell_scale_power);
    v("cell_clip", cell_clip, kOptional);
  }
};

namespace detail {
struct AttrWriter {
  Node& n;
  template <class T>
  void operator()(const char* name, const T& value, bool /*required*/ = true) {
    n.attrs[name] = value;
  }
};
// Reads each attribute into its member; the wrong type is an internal error.
struct AttrReader {
  const Node& n;
  void operator()(const char* name, int64_t& v, bool required = true);
  void operator()(const char* name, double& v, bool required = true);
  void operator()(const char* name, std::vector<int64_t>& v, bool required = true);
  void operator()(const char* name, std::vector<double>& v, bool required = true);
};
}  // namespace detail

// Writes every attribute of `a` on `n` (the one way producers set them).
template <class A>
void set_attrs(Node& n, A a) {
  a.visit(detail::AttrWriter{n});
}

// The typed attributes of `n` (the one way lowerings read them).
template <class A>
A get_attrs(const Node& n) {
  A a;
  a.visit(detail::AttrReader{n});
  return a;
}

// ---- the operator table -------------------------------------------------------------

enum class AttrKind { Int, Float, String, Ints, Floats, Strings, Tensor, Graph };
const char* attr_kind_name(AttrKind k);

struct AttrDef {
  std::string name;
  AttrKind kind;
  bool required = false;
};

// An operand or result. `dtypes` empty: any dtype. A variadic operand takes the
// rest of the list (it must come last).
struct OperandDef {
  std::string name;
  std::vector<DType> dtypes;
  bool optional = false;  // may be absent (nullptr) or past the end
  bool variadic = false;
  bool constant = false;  // must be known at compile time
};

struct OpDef {
  std::string name;
  std::string summary;
  std::vector<OperandDef> inputs;
  std::vector<OperandDef> outputs;
  std::vector<AttrDef> attrs;
  // When true, attributes beyond `attrs` are allowed: ops that carry the
  // attributes of the ONNX operator they fuse (KilnConvAdd carries Conv's).
  bool open_attrs = false;
  // What the operand, result and attribute lists cannot say; nullopt when it holds.
  std::optional<std::string> (*verify)(const Node&) = nullptr;
};

// Every definition, by name.
const std::vector<OpDef>& kiln_op_defs();
// The definition of `op_type`, or null when it is not one of Kiln's own.
const OpDef* find_op_def(std::string_view op_type);
// Whether `op_type` is in Kiln's namespace of operators ("Kiln" prefix).
bool is_kiln_op(std::string_view op_type);

// The first way `n` breaks its definition, or nullopt. A node of an unknown Kiln
// operator breaks the table itself.
std::optional<std::string> verify_node(const Node& n);

}  // namespace kiln::ops
