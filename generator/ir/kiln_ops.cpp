// The table of Kiln's own operators (ir/kiln_ops.h). One entry per operator:
// operands and results with their dtypes, attributes (derived from the typed
// struct where the op has one), and a verify function for ranges and agreements
// the lists cannot express. The lowerings still check what they need to write C;
// this table catches a producer that breaks the contract at the pass that did it.
#include "ir/kiln_ops.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <type_traits>

namespace kiln::ops {

namespace detail {

namespace {

template <class T>
const T* attr_as(const Node& n, const char* name) {
  auto it = n.attrs.find(name);
  if (it == n.attrs.end()) return nullptr;
  const T* v = std::get_if<T>(&it->second);
  if (!v) throw std::logic_error(n.describe() + ": attribute '" + name + "' has the wrong type");
  return v;
}

}  // namespace

void AttrReader::operator()(const char* name, int64_t& v, bool) {
  if (const auto* p = attr_as<int64_t>(n, name)) v = *p;
}
void AttrReader::operator()(const char* name, double& v, bool) {
  if (const auto* p = attr_as<double>(n, name)) v = *p;
}
void AttrReader::operator()(const char* name, std::vector<int64_t>& v, bool) {
  if (const auto* p = attr_as<std::vector<int64_t>>(n, name)) v = *p;
}
void AttrReader::operator()(const char* name, std::vector<double>& v, bool) {
  if (const auto* p = attr_as<std::vector<double>>(n, name)) v = *p;
}

}  // namespace detail

const char* attr_kind_name(AttrKind k) {
  switch (k) {
    case AttrKind::Int: return "int";
    case AttrKind::Float: return "float";
    case AttrKind::String: return "string";
    case AttrKind::Ints: return "ints";
    case AttrKind::Floats: return "floats";
    case AttrKind::Strings: return "strings";
    case AttrKind::Tensor: return "tensor";
    case AttrKind::Graph: return "graph";
  }
  return "?";
}

namespace {

using Problem = std::optional<std::string>;

// ---- building definitions -------------------------------------------------------

template <class T>
constexpr AttrKind kind_of() {
  if constexpr (std::is_same_v<T, int64_t>) return AttrKind::Int;
  else if constexpr (std::is_same_v<T, double>) return AttrKind::Float;
  else if constexpr (std::is_same_v<T, std::vector<int64_t>>) return AttrKind::Ints;
  else return AttrKind::Floats;
}

struct AttrLister {
  std::vector<AttrDef>& out;
  template <class T>
  void operator()(const char* name, T&, bool required = true) {
    out.push_back({name, kind_of<T>(), required});
  }
};

// The attribute list of a typed struct: every member (producers write them all
// through set_attrs; a node built otherwise may omit the optional ones).
template <class A>
std::vector<AttrDef> attrs_of() {
  std::vector<AttrDef> out;
  A a;
  a.visit(AttrLister{out});
  return out;
}

OperandDef in(std::string name, std::vector<DType> dtypes = {}) { return {std::move(name), std::move(dtypes)}; }
OperandDef constant_in(std::string name, std::vector<DType> dtypes) {
  OperandDef d{std::move(name), std::move(dtypes)};
  d.constant = true;
  return d;
}
OperandDef optional_in(OperandDef d) {
  d.optional = true;
  return d;
}
OperandDef variadic(std::string name, std::vector<DType> dtypes = {}) {
  OperandDef d{std::move(name), std::move(dtypes)};
  d.variadic = true;
  return d;
}

const std::vector<DType> kI8{DType::Int8};
const std::vector<DType> kI32{DType::Int32};
const std::vector<DType> kBool{DType::Bool};

// ---- shared checks -----------------------------------------------------------------

Problem int8_range(const char* what, int64_t v) {
  if (v < -128 || v > 127) return std::string(what) + " = " + std::to_string(v) + " is outside int8";
  return std::nullopt;
}

Problem clamp_range(int64_t lo, int64_t hi) {
  if (auto p = int8_range("act_min", lo)) return p;
  if (auto p = int8_range("act_max", hi)) return p;
  if (lo > hi) return "act_min " + std::to_string(lo) + " is above act_max " + std::to_string(hi);
  return std::nullopt;
}

Problem positive_scale(const char* what, double s) {
  if (!(s > 0.0) || !std::isfinite(s)) return std::string(what) + " must be positive and finite";
  return std::nullopt;
}

Problem quant_io(const QuantIO& q, int64_t channels) {
  if (auto p = int8_range("x_zero_point", q.x_zero_point)) return p;
  if (auto p = int8_range("y_zero_point", q.y_zero_point)) return p;
  if (auto p = clamp_range(q.act_min, q.act_max)) return p;
  if (q.requant_scale.size() != 1 && int64_t(q.requant_scale.size()) != channels)
    return "requant_scale has " + std::to_string(q.requant_scale.size()) + " values, expected 1 or " +
           std::to_string(channels);
  for (double s : q.requant_scale)
    if (auto p = positive_scale("requant_scale", s)) return p;
  return std::nullopt;
}

Problem window(const Window2D& w) {
  if (w.strides.size() != 2 || w.dilations.size() != 2 || w.pads.size() != 4)
    return "strides / dilations need 2 values and pads 4";
  for (int64_t s : w.strides)
    if (s < 1) return "strides " + shape_str(w.strides) + " must be positive";
  for (int64_t d : w.dilations)
    if (d < 1) return "dilations " + shape_str(w.dilations) + " must be positive";
  for (int64_t p : w.pads)
    if (p < 0) return "pads " + shape_str(w.pads) + " must not be negative";
  return std::nullopt;
}

const Shape* shape_of(const Value* v) { return v && v->shape_known ? &v->shape : nullptr; }

// ---- verify functions ----------------------------------------------------------------

Problem verify_qconv2d(const Node& n) {
  const auto a = get_attrs<QConv2D>(n);
  if (auto p = window(a.window)) return p;
  const Shape *x = shape_of(n.input(0)), *w = shape_of(n.input(1));
  if (!x || !w) return std::nullopt;
  if (x->size() != 4 || w->size() != 4) return "input and weights must be rank 4 (NHWC, OHWI)";
  if (a.input_nchw != 0 && a.input_nchw != 1) return "input_nchw must be 0 or 1";
  if (a.input_nchw && a.group != 1) return "an NCHW input needs group 1";
  const int64_t cout = (*w)[0];
  if (a.group < 1 || (*x)[a.input_nchw ? 1 : 3] != (*w)[3] * a.group || cout % a.group != 0)
    return "weights " + shape_str(*w) + " with group " + std::to_string(a.group) + " do not fit input " + shape_str(*x);
  if (const Shape* b = shape_of(n.input(2)); b && *b != Shape{cout}) return "bias must be [" + std::to_string(cout) + "]";
  return quant_io(a.quant, cout);
}

Problem verify_qdepthwise(const Node& n) {
  const auto a = get_attrs<QDepthwiseConv2D>(n);
  if (auto p = window(a.window)) return p;
  if (a.depth_multiplier < 1) return "depth_multiplier must be positive";
  const Shape *x = shape_of(n.input(0)), *w = shape_of(n.input(1));
  if (!x || !w) return std::nullopt;
  if (x->size() != 4 || w->size() != 3) return "input must be rank 4 (NHWC) and weights rank 3 [KH,KW,C]";
  const int64_t cout = (*w)[2];
  if (cout != (*x)[3] * a.depth_multiplier)
    return "weights " + shape_str(*w) + " do not give input channels " + std::to_string((*x)[3]) + " x multiplier " +
           std::to_string(a.depth_multiplier);
  if (const Shape* b = shape_of(n.input(2)); b && *b != Shape{cout}) return "bias must be [" + std::to_string(cout) + "]";
  return quant_io(a.quant, cout);
}

Problem verify_qfully_connected(const Node& n) {
  const auto a = get_attrs<QFullyConnected>(n);
  const Shape *x = shape_of(n.input(0)), *w = shape_of(n.input(1));
  if (!x || !w) return std::nullopt;
  if (x->size() != 2 || w->size() != 2 || (*x)[1] != (*w)[1])
    return "input " + shape_str(*x) + " and weights " + shape_str(*w) + " must be [M,K] and [N,K]";
  if (const Shape* b = shape_of(n.input(2)); b && *b != Shape{(*w)[0]})
    return "bias must be [" + std::to_string((*w)[0]) + "]";
  return quant_io(a.quant, (*w)[0]);
}

Problem verify_qbinary(const Node& n) {
  const auto a = get_attrs<QBinary>(n);
  for (auto [what, s] : {std::pair{"a_scale", a.a_scale}, {"b_scale", a.b_scale}, {"y_scale", a.y_scale}})
    if (auto p = positive_scale(what, s)) return p;
  for (auto [what, z] :
       {std::pair{"a_zero_point", a.a_zero_point}, {"b_zero_point", a.b_zero_point}, {"y_zero_point", a.y_zero_point}})
    if (auto p = int8_range(what, z)) return p;
  return clamp_range(a.act_min, a.act_max);
}

Problem verify_qpool(const Node& n) {
  const auto a = get_attrs<QPool2D>(n);
  if (a.kernel_shape.size() != 2 || a.kernel_shape[0] < 1 || a.kernel_shape[1] < 1)
    return "kernel_shape " + shape_str(a.kernel_shape) + " must be two positive sizes";
  if (auto p = window(Window2D{a.strides, {1, 1}, a.pads})) return p;
  return clamp_range(a.act_min, a.act_max);
}

Problem verify_qsoftmax(const Node& n) {
  const auto a = get_attrs<QSoftmax>(n);
  if (auto p = positive_scale("x_scale", a.x_scale)) return p;
  if (!std::isfinite(a.beta)) return "beta must be finite";
  return std::nullopt;
}

Problem verify_qmean(const Node& n) {
  const auto a = get_attrs<QMean>(n);
  if (a.axes.empty()) return "axes must not be empty";
  for (size_t i = 1; i < a.axes.size(); ++i)
    if (a.axes[i] != a.axes[i - 1] + 1) return "axes " + shape_str(a.axes) + " must be one contiguous run";
  if (const Shape* x = shape_of(n.input(0)); x && (a.axes.front() < 0 || a.axes.back() >= int64_t(x->size())))
    return "axes " + shape_str(a.axes) + " are outside the input's rank";
  if (auto p = int8_range("x_zero_point", a.x_zero_point)) return p;
  if (auto p = int8_range("y_zero_point", a.y_zero_point)) return p;
  return positive_scale("requant_scale", a.requant_scale);
}

Problem verify_qresize(const Node& n) {
  const auto a = get_attrs<QResizeBilinear>(n);
  if ((a.align_corners & ~int64_t(1)) || (a.half_pixel_centers & ~int64_t(1))) return "flags must be 0 or 1";
  if (a.align_corners && a.half_pixel_centers) return "align_corners and half_pixel_centers cannot both be set";
  return std::nullopt;
}

Problem verify_qbatch_matmul(const Node& n) {
  const auto a = get_attrs<QBatchMatMul>(n);
  for (auto [what, z] :
       {std::pair{"a_zero_point", a.a_zero_point}, {"b_zero_point", a.b_zero_point}, {"y_zero_point", a.y_zero_point}})
    if (auto p = int8_range(what, z)) return p;
  if (auto p = positive_scale("requant_scale", a.requant_scale)) return p;
  return clamp_range(a.act_min, a.act_max);
}

Problem verify_qquantize(const Node& n) {
  const auto a = get_attrs<QQuantizeF32>(n);
  if (auto p = positive_scale("y_scale", a.y_scale)) return p;
  return int8_range("y_zero_point", a.y_zero_point);
}

Problem verify_qlstm(const Node& n) {
  const auto a = get_attrs<QLstm>(n);
  if (a.input_fc_scale.size() != 4 || a.recurrent_fc_scale.size() != 4)
    return "input_fc_scale and recurrent_fc_scale need one value per gate (4)";
  for (double s : a.input_fc_scale)
    if (auto p = positive_scale("input_fc_scale", s)) return p;
  for (double s : a.recurrent_fc_scale)
    if (auto p = positive_scale("recurrent_fc_scale", s)) return p;
  if (auto p = int8_range("x_zero_point", a.x_zero_point)) return p;
  if (auto p = int8_range("h_zero_point", a.h_zero_point)) return p;
  if (a.cell_clip < 0 || a.cell_clip > 32767) return "cell_clip must be in [0, 32767]";
  return std::nullopt;
}

Problem verify_lookup(const Node& n) {
  if (const Value* t = n.input(1); t && t->shape_known && shape_elements(t->shape) != 256)
    return "table must have 256 entries, has " + shape_str(t->shape);
  return std::nullopt;
}

Problem verify_loop_end(const Node& n) {
  const int64_t carried = n.attr_int("carried", -1);
  if (carried < 0 || n.inputs.size() < size_t(3 + 2 * carried))
    return "carried = " + std::to_string(carried) + " does not fit its " + std::to_string(n.inputs.size()) + " inputs";
  return std::nullopt;
}

Problem verify_seq_table(const Node& n) {
  if (n.attr_int("capacity", -1) < 0 || n.attr_int("elem_bytes", -1) < 0)
    return "capacity and elem_bytes must not be negative";
  return std::nullopt;
}

// ---- the table ---------------------------------------------------------------------

OpDef quantized(std::string name, std::string summary, std::vector<OperandDef> ins, std::vector<AttrDef> attrs,
                Problem (*verify)(const Node&)) {
  OpDef d{std::move(name), std::move(summary), std::move(ins), {in("y", kI8)}, std::move(attrs)};
  d.verify = verify;
  return d;
}

std::vector<OpDef> make_table() {
  const OperandDef x = in("x", kI8);
  const OperandDef weights = constant_in("weights", kI8);
  // A bias computed at run time is allowed: the lowerings keep a form that reads it.
  const OperandDef bias = optional_in(in("bias", kI32));
  const std::vector<AttrDef> seq_attrs{{"capacity", AttrKind::Int, true}, {"elem_bytes", AttrKind::Int, true}};
  std::vector<OpDef> t;
  t.push_back(quantized("KilnQConv2D", "int8 2-D convolution, NHWC, OHWI weights, grouped",
                        {x, weights, bias}, attrs_of<QConv2D>(), verify_qconv2d));
  t.push_back(quantized("KilnQDepthwiseConv2D", "int8 depthwise convolution, NHWC, [KH,KW,C*M] weights",
                        {x, weights, bias}, attrs_of<QDepthwiseConv2D>(), verify_qdepthwise));
  t.push_back(quantized("KilnQFullyConnected", "int8 [M,K] x [N,K]^T + bias", {x, weights, bias},
                        attrs_of<QFullyConnected>(), verify_qfully_connected));
  for (const char* op : {"KilnQAdd", "KilnQSub", "KilnQMul"})
    t.push_back(quantized(op, "int8 element-wise with numpy broadcasting", {in("a", kI8), in("b", kI8)},
                          attrs_of<QBinary>(), verify_qbinary));
  for (const char* op : {"KilnQAvgPool2D", "KilnQMaxPool2D"})
    t.push_back(quantized(op, "int8 2-D pooling, NHWC", {x}, attrs_of<QPool2D>(), verify_qpool));
  t.push_back(quantized("KilnQSoftmax", "int8 softmax over the last axis", {x}, attrs_of<QSoftmax>(), verify_qsoftmax));
  t.push_back(quantized("KilnQMean", "int8 mean over one run of axes", {x}, attrs_of<QMean>(), verify_qmean));
  t.push_back(quantized("KilnQResizeBilinear", "int8 bilinear resize, NHWC", {x}, attrs_of<QResizeBilinear>(),
                        verify_qresize));
  t.push_back(quantized("KilnQBatchMatMul", "int8 batched matrix product", {in("a", kI8), in("b", kI8)},
                        attrs_of<QBatchMatMul>(), verify_qbatch_matmul));
  t.push_back(quantized("KilnQQuantizeF32", "float32 -> int8", {in("x", {DType::Float32})}, attrs_of<QQuantizeF32>(),
                        verify_qquantize));
  t.push_back(quantized("KilnQLstm", "TFLite Micro's integer unidirectional sequence LSTM",
                        {x, constant_in("input_weights", kI8), constant_in("recurrent_weights", kI8),
                         constant_in("bias", kI32), constant_in("sigmoid_table", {DType::UInt16})},
                        attrs_of<QLstm>(), verify_qlstm));
  t.push_back(quantized("KilnQLookup", "int8 -> int8 through a 256-entry table", {x, constant_in("table", kI8)}, {},
                        verify_lookup));

  // Control flow and run-time sequences: byte copies and markers, any dtype.
  t.push_back({"KilnSelect", "cond ? then : else, bytewise", {in("cond", kBool), in("then"), in("else")}, {in("y")}, {}});
  t.push_back({"KilnGuard", "the value, when the check holds", {in("check", kBool), in("value")}, {in("y")}, {}});
  t.push_back({"KilnTakeSlice",
               "one row of a scanned input",
               {in("x")},
               {in("y")},
               {{"outer", AttrKind::Int, true},
                {"axis_len", AttrKind::Int, true},
                {"inner", AttrKind::Int, true},
                {"index", AttrKind::Int, true}}});
  t.push_back({"KilnLoopBegin",
               "start of a Loop region (ir/loop_region.h)",
               {optional_in(in("trip_count", {DType::Int64})), optional_in(in("cond", kBool)), variadic("initial")},
               {variadic("bound")},
               {}});
  OpDef end{"KilnLoopEnd",
            "end of a Loop region (ir/loop_region.h)",
            {variadic("state")},
            {variadic("final")},
            {{"carried", AttrKind::Int, true},
             {"scan_length", AttrKind::Int, true},
             {"check_length", AttrKind::Int, true}}};
  end.verify = verify_loop_end;
  t.push_back(end);
  const std::vector<DType> table{DType::UInt8};
  auto seq = [&](const char* name, const char* summary, std::vector<OperandDef> ins, std::vector<OperandDef> outs,
                 std::vector<AttrDef> extra = {}) {
    OpDef d{name, summary, std::move(ins), std::move(outs), seq_attrs};
    d.attrs.insert(d.attrs.end(), extra.begin(), extra.end());
    d.verify = verify_seq_table;
    t.push_back(d);
  };
  seq("KilnSeqBuild", "a run-time sequence table from its elements", {variadic("elements")}, {in("table", table)});
  seq("KilnSeqInsert", "insert into a run-time sequence table",
      {in("table", table), in("element"), optional_in(in("position"))}, {in("table", table)},
      {{"slot", AttrKind::Int, true}});
  seq("KilnSeqErase", "erase from a run-time sequence table", {in("table", table), optional_in(in("position"))},
      {in("table", table)});
  seq("KilnSeqAt", "an element of a run-time sequence table", {in("table", table), in("position")}, {in("element")});
  seq("KilnSeqMaterialize", "a run-time sequence table's elements as tensors", {in("table", table)},
      {variadic("elements")});

  // Fused float ops: they carry the attributes of the ONNX Conv they replace.
  OpDef conv_add{"KilnConvAdd",
                 "Conv + Add over a residual, written over the residual",
                 {in("x", {DType::Float32}), in("w", {DType::Float32}), optional_in(in("b", {DType::Float32})),
                  in("residual", {DType::Float32})},
                 {in("y", {DType::Float32})},
                 {}};
  conv_add.open_attrs = true;
  t.push_back(conv_add);
  OpDef ir{"KilnInvertedResidual",
           "expand 1x1 -> depthwise -> project 1x1, in bands of rows",
           {in("x", {DType::Float32}), in("w1", {DType::Float32}), optional_in(in("b1", {DType::Float32})),
            in("w2", {DType::Float32}), optional_in(in("b2", {DType::Float32})), in("w3", {DType::Float32}),
            optional_in(in("b3", {DType::Float32}))},
           {in("y", {DType::Float32})},
           {{"lo1", AttrKind::Float, true},
            {"hi1", AttrKind::Float, true},
            {"lo2", AttrKind::Float, true},
            {"hi2", AttrKind::Float, true}}};
  ir.open_attrs = true;
  t.push_back(ir);
  std::sort(t.begin(), t.end(), [](const OpDef& a, const OpDef& b) { return a.name < b.name; });
  return t;
}

AttrKind kind_of_value(const AttrValue& v) {
  switch (v.index()) {
    case 0: return AttrKind::Int;
    case 1: return AttrKind::Float;
    case 2: return AttrKind::String;
    case 3: return AttrKind::Ints;
    case 4: return AttrKind::Floats;
    case 5: return AttrKind::Strings;
    case 6: return AttrKind::Tensor;
    default: return AttrKind::Graph;
  }
}

std::string dtype_list(const std::vector<DType>& ds) {
  std::string s;
  for (DType d : ds) s += (s.empty() ? "" : " or ") + std::string(dtype_name(d));
  return s;
}

// Checks `vals` against `defs`: arity, presence, dtype, constness.
Problem operands(const std::vector<Value*>& vals, const std::vector<OperandDef>& defs, const char* what) {
  const bool has_variadic = !defs.empty() && defs.back().variadic;
  const size_t fixed = has_variadic ? defs.size() - 1 : defs.size();
  size_t required = 0;
  for (size_t i = 0; i < fixed; ++i)
    if (!defs[i].optional) required = i + 1;
  if (vals.size() < required || (!has_variadic && vals.size() > defs.size()))
    return std::string("has ") + std::to_string(vals.size()) + " " + what + "s, expected " +
           (has_variadic ? "at least " + std::to_string(required)
                         : required == defs.size() ? std::to_string(required)
                                                   : std::to_string(required) + " to " + std::to_string(defs.size()));
  for (size_t i = 0; i < vals.size(); ++i) {
    const OperandDef& d = defs[std::min(i, defs.size() - 1)];
    const Value* v = vals[i];
    if (!v) {
      if (d.optional || d.variadic) continue;
      return std::string(what) + " " + std::to_string(i) + " '" + d.name + "' is absent";
    }
    if (!d.dtypes.empty() && std::find(d.dtypes.begin(), d.dtypes.end(), v->dtype) == d.dtypes.end())
      return std::string(what) + " " + std::to_string(i) + " '" + d.name + "' is " + dtype_name(v->dtype) +
             ", expected " + dtype_list(d.dtypes);
    if (d.constant && !v->is_constant())
      return std::string(what) + " " + std::to_string(i) + " '" + d.name + "' must be a constant";
  }
  return std::nullopt;
}

}  // namespace

const std::vector<OpDef>& kiln_op_defs() {
  static const std::vector<OpDef> table = make_table();
  return table;
}

const OpDef* find_op_def(std::string_view op_type) {
  const auto& t = kiln_op_defs();
  auto it = std::lower_bound(t.begin(), t.end(), op_type, [](const OpDef& d, std::string_view n) { return d.name < n; });
  return it != t.end() && it->name == op_type ? &*it : nullptr;
}

bool is_kiln_op(std::string_view op_type) { return op_type.rfind("Kiln", 0) == 0; }

std::optional<std::string> verify_node(const Node& n) {
  const OpDef* d = find_op_def(n.op_type);
  if (!d) return "'" + n.op_type + "' is not in Kiln's operator table (ir/kiln_ops.cpp)";
  if (auto p = operands(n.inputs, d->inputs, "input")) return p;
  if (auto p = operands(n.outputs, d->outputs, "output")) return p;
  for (const AttrDef& a : d->attrs) {
    auto it = n.attrs.find(a.name);
    if (it == n.attrs.end()) {
      if (a.required) return "attribute '" + a.name + "' is required";
      continue;
    }
    if (kind_of_value(it->second) != a.kind)
      return "attribute '" + a.name + "' is " + attr_kind_name(kind_of_value(it->second)) + ", expected " +
             attr_kind_name(a.kind);
  }
  if (!d->open_attrs)
    for (const auto& attr : n.attrs) {
      // Not a structured binding: clang 14 (make fuzz) cannot capture one in a lambda.
      const std::string& name = attr.first;
      if (std::none_of(d->attrs.begin(), d->attrs.end(), [&](const AttrDef& a) { return a.name == name; }))
        return "attribute '" + name + "' is not defined for " + d->name;
    }
  if (d->verify) return d->verify(n);
  return std::nullopt;
}

}  // namespace kiln::ops
