#include "onnx/node_validation.h"

#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include "onnx/node_conversion.h"
#include "onnx/tensor_proto.h"
#include "util/checked_math.h"
#include "util/error.h"
#include "util/fault_guard.h"
#include "util/quoted.h"

namespace kiln {

namespace fs = std::filesystem;

namespace {

constexpr int64_t kBig = kMaxTensorElements;  // no extent, stride or count may exceed one tensor's elements

// One rule of the table: every value of attribute `attr` (an INT, or each entry of
// INTS) of operator `op` ("*": any operator) lies in [lo, hi].
struct AttrRule {
  const char* op;
  const char* attr;
  int64_t lo, hi;
};

// The attributes that a shape rule or a kernel divides by, indexes with, or
// multiplies into a size. Anything outside these ranges is never a valid model,
// and ONNX 1.12's shape inference crashes on several of them (a 0 stride is a
// division by zero, axis INT64_MAX overflows axis + rank).
const AttrRule kAttrRules[] = {
    // An axis or permutation entry indexes a tensor's dimensions.
    {"*", "axis", -kMaxRank, kMaxRank},
    {"*", "axes", -kMaxRank, kMaxRank},
    {"*", "perm", 0, kMaxRank - 1},
    {"*", "batch_dims", 0, kMaxRank},
    {"ReverseSequence", "batch_axis", 0, 1},
    {"ReverseSequence", "time_axis", 0, 1},
    // Convolution and pooling windows: strides and dilations divide, kernel
    // extents and pads add to extents.
    {"Conv", "strides", 1, kBig}, {"Conv", "dilations", 1, kBig}, {"Conv", "kernel_shape", 1, kBig},
    {"Conv", "pads", 0, kBig}, {"Conv", "group", 1, kBig},
    {"ConvInteger", "strides", 1, kBig}, {"ConvInteger", "dilations", 1, kBig},
    {"ConvInteger", "kernel_shape", 1, kBig}, {"ConvInteger", "pads", 0, kBig}, {"ConvInteger", "group", 1, kBig},
    {"QLinearConv", "strides", 1, kBig}, {"QLinearConv", "dilations", 1, kBig},
    {"QLinearConv", "kernel_shape", 1, kBig}, {"QLinearConv", "pads", 0, kBig}, {"QLinearConv", "group", 1, kBig},
    {"ConvTranspose", "strides", 1, kBig}, {"ConvTranspose", "dilations", 1, kBig},
    {"ConvTranspose", "kernel_shape", 1, kBig}, {"ConvTranspose", "pads", 0, kBig},
    {"ConvTranspose", "group", 1, kBig}, {"ConvTranspose", "output_padding", 0, kBig},
    {"ConvTranspose", "output_shape", 0, kBig},
    {"DeformConv", "strides", 1, kBig}, {"DeformConv", "dilations", 1, kBig},
    {"DeformConv", "kernel_shape", 1, kBig}, {"DeformConv", "pads", 0, kBig}, {"DeformConv", "group", 1, kBig},
    {"DeformConv", "offset_group", 1, kBig},
    {"MaxPool", "strides", 1, kBig}, {"MaxPool", "dilations", 1, kBig}, {"MaxPool", "kernel_shape", 1, kBig},
    {"MaxPool", "pads", 0, kBig}, {"MaxPool", "storage_order", 0, 1}, {"MaxPool", "ceil_mode", 0, 1},
    {"AveragePool", "strides", 1, kBig}, {"AveragePool", "dilations", 1, kBig},
    {"AveragePool", "kernel_shape", 1, kBig}, {"AveragePool", "pads", 0, kBig}, {"AveragePool", "ceil_mode", 0, 1},
    {"LpPool", "strides", 1, kBig}, {"LpPool", "dilations", 1, kBig}, {"LpPool", "kernel_shape", 1, kBig},
    {"LpPool", "pads", 0, kBig}, {"LpPool", "p", 1, 64},
    {"GlobalLpPool", "p", 1, 64},
    {"MaxUnpool", "strides", 1, kBig}, {"MaxUnpool", "kernel_shape", 1, kBig}, {"MaxUnpool", "pads", 0, kBig},
    {"MaxRoiPool", "pooled_shape", 1, kBig},
    {"RoiAlign", "output_height", 1, kBig}, {"RoiAlign", "output_width", 1, kBig},
    {"RoiAlign", "sampling_ratio", 0, kBig},
    {"Col2Im", "strides", 1, kBig}, {"Col2Im", "dilations", 1, kBig}, {"Col2Im", "pads", 0, kBig},
    // Block sizes multiply channels and divide spatial extents.
    {"DepthToSpace", "blocksize", 1, 4096},
    {"SpaceToDepth", "blocksize", 1, 4096},
    // Counts and sizes.
    {"LRN", "size", 1, kBig},
    {"Split", "split", 0, kBig},
    {"Split", "num_outputs", 1, kBig},
    {"RNN", "hidden_size", 1, kBig}, {"GRU", "hidden_size", 1, kBig}, {"LSTM", "hidden_size", 1, kBig},
    {"GroupNormalization", "num_groups", 1, kBig},
    {"TopK", "k", 0, kBig},
    {"LpNormalization", "p", 1, 2},
    {"Gemm", "transA", 0, 1}, {"Gemm", "transB", 0, 1},
    {"CumSum", "exclusive", 0, 1}, {"CumSum", "reverse", 0, 1},
    {"STFT", "onesided", 0, 1},
    {"DFT", "onesided", 0, 1}, {"DFT", "inverse", 0, 1},
    {"Mod", "fmod", 0, 1},
};

// Input `input` of `op` must have a rank in [lo, hi] when the model declares it.
// Shape rules read dims (1), (2).. of these without checking the rank first.
struct RankRule {
  const char* op;
  int input;
  int64_t lo, hi;
};
const RankRule kRankRules[] = {
    {"Conv", 0, 3, kMaxRank}, {"Conv", 1, 3, kMaxRank},
    {"ConvTranspose", 0, 3, kMaxRank}, {"ConvTranspose", 1, 3, kMaxRank},
    {"ConvInteger", 0, 3, kMaxRank}, {"ConvInteger", 1, 3, kMaxRank},
    {"QLinearConv", 0, 3, kMaxRank}, {"QLinearConv", 3, 3, kMaxRank},
    {"DeformConv", 0, 3, kMaxRank},
    {"MaxPool", 0, 3, kMaxRank}, {"AveragePool", 0, 3, kMaxRank}, {"LpPool", 0, 3, kMaxRank},
    {"GlobalAveragePool", 0, 3, kMaxRank}, {"GlobalMaxPool", 0, 3, kMaxRank}, {"GlobalLpPool", 0, 3, kMaxRank},
    {"MaxUnpool", 0, 3, kMaxRank},
    {"InstanceNormalization", 0, 3, kMaxRank},
    {"LRN", 0, 3, kMaxRank},
    {"DepthToSpace", 0, 4, 4}, {"SpaceToDepth", 0, 4, 4},
    {"STFT", 0, 3, 3},
    {"DFT", 0, 2, kMaxRank},
    {"Gemm", 0, 2, 2}, {"Gemm", 1, 2, 2},
    {"LayerNormalization", 0, 1, kMaxRank},
    {"GroupNormalization", 0, 3, kMaxRank},
    {"RoiAlign", 0, 4, 4}, {"MaxRoiPool", 0, 4, 4},
    {"GridSample", 0, 4, kMaxRank},
    {"Col2Im", 0, 3, 3},
};

// Pairs of inputs whose ranks must agree: ONNX's convPoolShapeInference takes the
// kernel's spatial rank from the weights and indexes the input's strides and pads
// with it (a rank-3 input with rank-4 weights read past them: a SEGV); MaxUnpool's
// inference reads the indices' dimension 1 unchecked (rank-1 indices: a SEGV, found
// by make fuzz), and its contract gives the indices the input's dimensions.
struct SameRankRule {
  const char* op;
  int a, b;
  const char* b_role;  // what input b is, for the message
};
const SameRankRule kSameRankRules[] = {
    {"Conv", 0, 1, "weights"},        {"ConvInteger", 0, 1, "weights"},   {"QLinearConv", 0, 3, "weights"},
    {"ConvTranspose", 0, 1, "weights"}, {"DeformConv", 0, 1, "weights"}, {"MaxUnpool", 0, 1, "indices"},
};

// An axis attribute that ONNX's inference indexes the input's dimensions with
// before checking it against the rank (LayerNormalization axis -2 on a rank-1
// input read outside the shape: a SEGV). The axis lies in [-rank, rank - 1].
struct AxisRule {
  const char* op;
  const char* attr;
  int64_t default_axis;
  int input;
};
const AxisRule kAxisRules[] = {
    {"LayerNormalization", "axis", -1, 0},
};

// Inputs whose type ONNX 1.12's inference reads the shape of without checking it
// has one (a tensor type with no shape: a SEGV; found by tests/fuzz/rank_sweep.py
// and make fuzz). Kiln needs static shapes anyway; a model whose shape there is
// unknown is refused before ONNX runs.
struct ShapeRequired {
  const char* op;
  int input;
};
const ShapeRequired kShapeRequired[] = {
    {"EyeLike", 0},
    {"MaxUnpool", 1},
};

// Rules on the values of constant inputs (an initializer or a Constant node) that
// ONNX's shape inference and Kiln's folding compute sizes from.
enum class ValueRule {
  NonZeroFinite,  // Range delta: a step of 0 never ends, NaN has no count
  Finite,         // Range start / limit
  Steps,          // Slice steps: not 0, and INT64_MIN cannot be negated
  NonNegative,    // Tile repeats, TopK K, Split sizes, OneHot depth
  SplitSize,      // SplitToSequence split: a scalar is a chunk length (> 0, ONNX divides by it), a list is sizes (>= 0)
  ShapeTarget,    // ConstantOfShape / Expand shape: dims >= 0 and a tensor's worth of elements
  ReshapeTarget,  // Reshape shape: dims >= -1, the known ones a tensor's worth of elements
};
struct InputRule {
  const char* op;
  int input;
  ValueRule rule;
};
const InputRule kInputRules[] = {
    {"Range", 0, ValueRule::Finite},         {"Range", 1, ValueRule::Finite},
    {"Range", 2, ValueRule::NonZeroFinite},  {"Slice", 4, ValueRule::Steps},
    {"Tile", 1, ValueRule::NonNegative},     {"TopK", 1, ValueRule::NonNegative},
    {"Split", 1, ValueRule::NonNegative},    {"OneHot", 1, ValueRule::NonNegative},
    {"SplitToSequence", 1, ValueRule::SplitSize},
    {"ConstantOfShape", 0, ValueRule::ShapeTarget}, {"Expand", 1, ValueRule::ShapeTarget},
    {"Reshape", 1, ValueRule::ReshapeTarget},
};


std::string node_who(const onnx::NodeProto& np) {
  return escaped(np.op_type()) + " " +
         in_quotes(np.name().empty() ? (np.output_size() ? np.output(0) : std::string("?")) : np.name());
}

int64_t parse_count(const std::string& text, const std::string& what, const std::string& key) {
  int64_t v = 0;
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || p != end || v < 0)
    throw CompileError(what + ": external data " + in_quotes(key) + " is " + in_quotes(text) + ", not a non-negative integer");
  return v;
}

class Validator {
 public:
  Validator(std::map<std::string, int64_t> opsets, const ModelProtoChecks& c) : checks_(c), opsets_(std::move(opsets)) {}

  void model(const onnx::ModelProto& m) {
    const auto& g = m.graph();
    if (g.output_size() == 0)
      throw CompileError("the model has no graph outputs: there is nothing to compute");
    graph(g, /*top_level=*/true);
  }

  // The per-node rules alone, for a node whose input ranks and constant inputs
  // are given.
  void node(const onnx::NodeProto& np, const std::map<std::string, int64_t>& ranks,
            const std::map<std::string, const onnx::TensorProto*>& constants) {
    ranks_ = ranks;
    constants_ = constants;
    arity(np);
    graph_attributes(np);
    attribute_rules(np);
    rank_rules(np);
    input_rules(np);
  }

 private:
  // Every tensor held in the model: its shape must be sane and its data exactly
  // as long as that shape and dtype say, before any library parses it (ONNX's
  // ParseData trusts the lengths: a short int64 raw_data is read past its end).
  void tensor(const onnx::TensorProto& t, const std::string& what, bool top_level_initializer) {
    std::vector<int64_t> dims(t.dims().begin(), t.dims().end());
    const int64_t n = checked_elements(dims, what);
    const int32_t dt = t.data_type();
    if (dt == onnx::TensorProto::UNDEFINED || !onnx::TensorProto::DataType_IsValid(dt))
      throw CompileError(what + ": element type " + std::to_string(dt) + " is not a valid ONNX type");
    const size_t esz = dtype_is_known(dt) ? dtype_size(DType(dt)) : 0;
    if (esz == 0) return;  // strings and the like: Kiln names them unsupported when it reads them
    const int64_t expected = checked_tensor_bytes(dims, esz, what);
    if (t.data_location() == onnx::TensorProto::EXTERNAL) {
      const int64_t sliced = top_level_initializer && checks_.sliced_bytes ? checks_.sliced_bytes(t.name()) : -1;
      if (sliced >= 0) {
        if (sliced != expected)
          throw CompileError(what + ": raw_data has " + std::to_string(sliced) + " bytes, expected " +
                             std::to_string(expected));
        return;
      }
      std::string location;
      int64_t offset = 0, length = -1;
      for (const auto& kv : t.external_data()) {
        if (kv.key() == "location") location = kv.value();
        else if (kv.key() == "offset") offset = parse_count(kv.value(), what, "offset");
        else if (kv.key() == "length") length = parse_count(kv.value(), what, "length");
      }
      if (location.empty()) throw CompileError(what + ": external data has no 'location'");
      const fs::path file = resolve_external_location(location, checks_.base_dir, what);
      if (length >= 0 && length != expected)
        throw CompileError(what + ": external data length " + std::to_string(length) + " does not match the " +
                           std::to_string(expected) + " bytes implied by its dtype and shape");
      std::error_code ec;
      const uintmax_t size = fs::file_size(file, ec);
      if (ec || uint64_t(offset) > size || size - uint64_t(offset) < uint64_t(expected))
        throw CompileError(what + ": external data file " + in_quotes(location) + " is too short for " +
                           std::to_string(expected) + " bytes at offset " + std::to_string(offset));
      return;
    }
    if (t.has_raw_data()) {
      if (int64_t(t.raw_data().size()) != expected)
        throw CompileError(what + ": raw_data has " + std::to_string(t.raw_data().size()) + " bytes, expected " +
                           std::to_string(expected));
      return;
    }
    const size_t count = typed_field_count(t, DType(dt));
    if (int64_t(count) != n)
      throw CompileError(what + ": holds " + std::to_string(count) + " elements, its shape needs " + std::to_string(n));
  }

  // A declared type (graph input/output, value_info): a tensor shape no larger
  // than one tensor may be, in dims ONNX's data propagation would allocate.
  void value_info(const onnx::ValueInfoProto& vi, const std::string& what) {
    const onnx::TypeProto* t = &vi.type();
    while (t->has_sequence_type() && t->sequence_type().has_elem_type()) t = &t->sequence_type().elem_type();
    if (!t->has_tensor_type() || !t->tensor_type().has_shape()) return;
    std::vector<int64_t> dims;
    for (const auto& d : t->tensor_type().shape().dim()) {
      if (!d.has_dim_value()) continue;
      if (d.dim_value() < 0)
        throw CompileError(what + " " + in_quotes(vi.name()) + " declares dimension " + std::to_string(d.dim_value()));
      dims.push_back(d.dim_value());
    }
    if (t->tensor_type().shape().dim_size() > kMaxRank)
      throw CompileError(what + " " + in_quotes(vi.name()) + " has rank " + std::to_string(t->tensor_type().shape().dim_size()) +
                         ", above Kiln's limit of " + std::to_string(kMaxRank));
    checked_elements(dims, what + " " + in_quotes(vi.name()));
    if (t == &vi.type()) {
      ranks_[vi.name()] = t->tensor_type().shape().dim_size();
      types_[vi.name()] = vi.type();
    }
  }

  void attribute_rules(const onnx::NodeProto& np) {
    for (const auto& a : np.attribute()) {
      for (const auto& r : kAttrRules) {
        if ((r.op[0] != '*' && np.op_type() != r.op) || a.name() != r.attr) continue;
        auto check = [&](int64_t v) {
          if (v < r.lo || v > r.hi)
            throw CompileError(node_who(np) + ": attribute " + in_quotes(a.name()) + " is " + std::to_string(v) +
                               "; it must lie in [" + std::to_string(r.lo) + ", " + std::to_string(r.hi) + "]");
        };
        if (a.type() == onnx::AttributeProto::INT) check(a.i());
        for (auto v : a.ints()) check(v);
        if (a.ints_size() > kMaxRank && std::string(r.attr) != "split")
          throw CompileError(node_who(np) + ": attribute " + in_quotes(a.name()) + " has " + std::to_string(a.ints_size()) +
                             " entries, more than any tensor has dimensions");
      }
    }
  }

  // Input and output counts against the operator's schema at the model's opset:
  // the version converter indexes a node's inputs by the schema before checking.
  // The node's schema at the model's opset for its domain; null for an unknown
  // domain (the importer names it) or operator (ONNX's checker names it).
  const onnx::OpSchema* schema_of(const onnx::NodeProto& np) const {
    const std::string domain = is_default_domain(np.domain()) ? "" : np.domain();
    auto op = opsets_.find(domain);
    if (op == opsets_.end()) return nullptr;
    return onnx::OpSchemaRegistry::Schema(np.op_type(), int(op->second), domain);
  }

  void arity(const onnx::NodeProto& np) {
    if (np.output_size() == 0) throw CompileError(node_who(np) + ": the node has no outputs");
    const auto* schema = schema_of(np);
    if (!schema) return;
    const int ins = np.input_size(), outs = np.output_size();
    if (ins < schema->min_input() || ins > schema->max_input())
      throw CompileError(node_who(np) + ": has " + std::to_string(ins) + " inputs; " + np.op_type() + "-" +
                         std::to_string(schema->since_version()) + " takes " + std::to_string(schema->min_input()) +
                         (schema->max_input() == schema->min_input() ? "" : " to " + std::to_string(schema->max_input())));
    if (outs < schema->min_output() || outs > schema->max_output())
      throw CompileError(node_who(np) + ": has " + std::to_string(outs) + " outputs; " + np.op_type() + "-" +
                         std::to_string(schema->since_version()) + " gives " + std::to_string(schema->min_output()) +
                         (schema->max_output() == schema->min_output() ? "" : " to " + std::to_string(schema->max_output())));
  }

  // The graph attributes the node's schema requires (If's branches, Loop's and
  // Scan's body, SequenceMap's body) are there and hold a graph: ONNX's inference
  // function reads the body without looking (a Scan without one was a SEGV), and
  // infer_types below runs it for any node without a graph attribute.
  void graph_attributes(const onnx::NodeProto& np) {
    const auto* schema = schema_of(np);
    if (!schema) return;
    for (const auto& [name, attr] : schema->attributes()) {
      const bool one = attr.type == onnx::AttributeProto::GRAPH, many = attr.type == onnx::AttributeProto::GRAPHS;
      if (!one && !many) continue;
      const onnx::AttributeProto* a = nullptr;
      for (const auto& x : np.attribute())
        if (x.name() == name) a = &x;
      if (!a) {
        if (attr.required) throw CompileError(node_who(np) + ": has no attribute " + in_quotes(name) + " (its subgraph)");
        continue;
      }
      if ((one && !a->has_g()) || (many && a->graphs_size() == 0))
        throw CompileError(node_who(np) + ": attribute " + in_quotes(name) + " holds no subgraph");
    }
  }

  // ConstantOfShape fills its output with its `value`, which must be one element
  // (an empty one was read past its end when folded).
  void attribute_tensor_rules(const onnx::NodeProto& np, const onnx::AttributeProto& a, const std::string& what) {
    if (np.op_type() != "ConstantOfShape" || a.name() != "value" || !a.has_t()) return;
    int64_t n = 1;
    for (auto d : a.t().dims()) n *= d;  // tensor() checked the product first
    if (n != 1) throw CompileError(what + ": holds " + std::to_string(n) + " elements; it must hold exactly one");
  }

  // The types of a node's outputs by ONNX's own inference function for it, from
  // the types known so far, so that each op's rank rule sees ranks that only
  // inference knows: a Conv behind a Flatten, Reshape, Squeeze or Add of rank-2
  // values crashed ONNX's convPoolShapeInference (found by `make fuzz` behind a
  // DequantizeLinear). This is ONNX's model-level pass run one node at a time, each
  // node only after its own rules held; a node it cannot type keeps unknown outputs
  // (ONNX's pass names the error later). A declared rank (value_info) is kept.
  void infer_types(const onnx::NodeProto& np) {
    for (const auto& a : np.attribute())
      if (a.has_g() || a.graphs_size() > 0) return;  // If / Loop / Scan: typed when lowered
    const auto* schema = schema_of(np);
    if (!schema || !schema->has_type_and_shape_inference_function()) return;
    std::unordered_map<std::string, onnx::TypeProto*> types;
    std::unordered_map<std::string, const onnx::TensorProto*> data;
    for (const auto& in : np.input()) {
      if (auto t = types_.find(in); t != types_.end()) types[in] = &t->second;
      if (auto c = constants_.find(in); c != constants_.end() && small_in_place(*c->second)) data[in] = c->second;
    }
    const std::unordered_map<std::string, const onnx::SparseTensorProto*> no_sparse;
    onnx::NodeProto copy = np;  // the context takes a mutable node
    onnx::shape_inference::InferenceContextImpl ctx(copy, types, data, no_sparse);
    FaultScope scope("ONNX's type inference of " + node_who(np));
    try {
      schema->GetTypeAndShapeInferenceFunction()(ctx);
    } catch (const std::exception&) {
      return;
    }
    for (int i = 0; i < np.output_size(); ++i) {
      const onnx::TypeProto* t = ctx.getOutputType(size_t(i));
      if (np.output(i).empty() || !t || !t->has_tensor_type()) continue;
      types_.emplace(np.output(i), *t);
      if (t->tensor_type().has_shape()) ranks_.emplace(np.output(i), t->tensor_type().shape().dim_size());
    }
  }
  // A constant whose data inference may read: held in the model, of a size a
  // shape input has (a large or external tensor is no shape).
  static bool small_in_place(const onnx::TensorProto& t) {
    if (t.data_location() == onnx::TensorProto::EXTERNAL || t.dims_size() > 1) return false;
    return t.dims_size() == 0 || t.dims(0) <= 4096;
  }

  void rank_rules(const onnx::NodeProto& np) {
    if (!is_default_domain(np.domain())) return;
    for (const auto& r : kRankRules) {
      if (np.op_type() != r.op || r.input >= np.input_size()) continue;
      auto it = ranks_.find(np.input(r.input));
      if (it == ranks_.end()) continue;
      if (it->second < r.lo || it->second > r.hi)
        throw CompileError(node_who(np) + ": input " + in_quotes(np.input(r.input)) + " has rank " + std::to_string(it->second) +
                           "; " + np.op_type() + " needs rank " +
                           (r.lo == r.hi ? std::to_string(r.lo) : std::to_string(r.lo) + " or more"));
    }
    for (const auto& r : kShapeRequired)
      if (np.op_type() == r.op && r.input < np.input_size() && !np.input(r.input).empty() &&
          !ranks_.count(np.input(r.input)))
        throw CompileError(node_who(np) + ": input " + in_quotes(np.input(r.input)) + " has no known shape; " + np.op_type() +
                           " needs it before shape inference");
    for (const auto& r : kAxisRules) {
      if (np.op_type() != r.op || r.input >= np.input_size()) continue;
      auto rank = ranks_.find(np.input(r.input));
      if (rank == ranks_.end()) continue;
      int64_t axis = r.default_axis;
      for (const auto& a : np.attribute())
        if (a.name() == r.attr && a.type() == onnx::AttributeProto::INT) axis = a.i();
      const int64_t n = rank->second;
      if (axis < -n || axis >= n)
        throw CompileError(node_who(np) + ": attribute " + in_quotes(r.attr) + " is " + std::to_string(axis) + "; for input '" +
                           np.input(r.input) + "' of rank " + std::to_string(n) + " it must lie in [" +
                           std::to_string(-n) + ", " + std::to_string(n - 1) + "]");
    }
    for (const auto& r : kSameRankRules) {
      if (np.op_type() != r.op || std::max(r.a, r.b) >= np.input_size()) continue;
      auto a = ranks_.find(np.input(r.a)), b = ranks_.find(np.input(r.b));
      if (a == ranks_.end() || b == ranks_.end() || a->second == b->second) continue;
      throw CompileError(node_who(np) + ": input " + in_quotes(np.input(r.a)) + " has rank " + std::to_string(a->second) +
                         " but the " + r.b_role + " " + in_quotes(np.input(r.b)) + " have rank " + std::to_string(b->second) +
                         "; " + np.op_type() + " needs them equal");
    }
    check_shape_data_broadcast(np);
  }

  // ONNX 1.12's data propagation (the whole-model pass, which follows shape
  // values through Shape, constants and arithmetic; Add / Sub / Mul from opset 14)
  // broadcasts two int64 vectors by reading element 0 of the one-element side and
  // element i of the other; an empty vector against a one-element one reads element
  // 0 of the empty one (a SEGV, found by make fuzz through Resize-18's rewrite of an
  // empty `axes`). Such an arithmetic on shape values is refused before it runs.
  void check_shape_data_broadcast(const onnx::NodeProto& np) {
    if (!is_default_domain(np.domain()) || np.input_size() != 2) return;
    if (np.op_type() != "Add" && np.op_type() != "Sub" && np.op_type() != "Mul") return;
    const auto* schema = schema_of(np);
    if (!schema || !schema->has_data_propagation_function()) return;
    int64_t n[2];
    for (int k = 0; k < 2; ++k) {
      auto t = types_.find(np.input(k));
      if (t == types_.end() || !t->second.has_tensor_type()) return;
      const auto& tt = t->second.tensor_type();
      if (tt.elem_type() != onnx::TensorProto::INT64 || !tt.has_shape() || tt.shape().dim_size() > 1) return;
      n[k] = 1;
      for (const auto& d : tt.shape().dim()) {
        if (!d.has_dim_value()) return;
        n[k] = d.dim_value();
      }
    }
    if (std::min(n[0], n[1]) != 0 || std::max(n[0], n[1]) != 1) return;
    const int empty = n[0] == 0 ? 0 : 1;
    throw CompileError(node_who(np) + ": input " + in_quotes(np.input(empty)) + " is an empty int64 vector broadcast against the "
                       "one-element " + in_quotes(np.input(1 - empty)) + "; ONNX 1.12's shape-value propagation cannot take it "
                       "(an empty list of axes, sizes or pads?)");
  }

  // The elements of a small constant input, or nothing when `name` is not an
  // initializer / Constant output (or is too big to be a size or count).
  std::optional<std::vector<double>> constant_values(const std::string& name) {
    auto it = constants_.find(name);
    if (it == constants_.end() || !dtype_is_known(it->second->data_type())) return std::nullopt;
    const onnx::TensorProto& t = *it->second;
    if (t.data_location() == onnx::TensorProto::EXTERNAL) return std::nullopt;
    int64_t n = 1;
    for (auto d : t.dims()) n *= d;  // checked by tensor() already
    if (n > 4096) return std::nullopt;
    ConstantPtr c = constant_from_tensor_proto(t, checks_.base_dir, "constant " + in_quotes(name));
    std::vector<double> v(size_t(c->num_elements()));
    for (int64_t i = 0; i < c->num_elements(); ++i) v[size_t(i)] = c->as_double(i);
    if (wide_kind(c->dtype()) != WideKind::Float) {  // exact integers (INT64_MIN does not survive a double)
      const auto ints = c->to_int64s();
      ints_[name] = ints;
    }
    return v;
  }

  void input_rules(const onnx::NodeProto& np) {
    if (!is_default_domain(np.domain())) return;
    for (const auto& r : kInputRules) {
      if (np.op_type() != r.op || r.input >= np.input_size() || np.input(r.input).empty()) continue;
      const std::string& name = np.input(r.input);
      auto values = constant_values(name);
      if (!values) continue;
      const auto ints = ints_.count(name) ? ints_[name] : std::vector<int64_t>{};
      auto fail = [&](const std::string& why) {
        throw CompileError(node_who(np) + ": input " + in_quotes(name) + " " + why);
      };
      switch (r.rule) {
        case ValueRule::Finite:
          for (double v : *values)
            if (!std::isfinite(v)) fail("is " + std::to_string(v) + "; it must be a finite number");
          break;
        case ValueRule::NonZeroFinite:
          for (double v : *values)
            if (!std::isfinite(v) || v == 0) fail("is " + std::to_string(v) + "; it must be a finite, non-zero step");
          break;
        case ValueRule::Steps:
          for (auto v : ints)
            if (v == 0 || v == INT64_MIN) fail("holds the step " + std::to_string(v) + "; a step must be non-zero and above INT64_MIN");
          break;
        case ValueRule::NonNegative:
          for (auto v : ints)
            if (v < 0) fail("holds " + std::to_string(v) + "; it must not be negative");
          break;
        case ValueRule::SplitSize:
          if (constants_.at(name)->dims_size() == 0) {
            for (auto v : ints)
              if (v <= 0) fail("is the chunk length " + std::to_string(v) + "; a scalar split must be positive");
          } else {
            for (auto v : ints)
              if (v < 0) fail("holds the size " + std::to_string(v) + "; split sizes must not be negative");
          }
          break;
        case ValueRule::ShapeTarget:
          checked_elements(ints, node_who(np) + ": target shape " + in_quotes(name));
          break;
        case ValueRule::ReshapeTarget: {
          std::vector<int64_t> known;
          for (auto v : ints) {
            if (v < -1) fail("holds the dimension " + std::to_string(v) + "; Reshape dimensions are -1, 0 or positive");
            if (v > 0) known.push_back(v);
          }
          checked_elements(known, node_who(np) + ": target shape " + in_quotes(name));
          break;
        }
      }
    }
    // Range: the element count ceil((limit - start) / delta) is the output size.
    if (np.op_type() == "Range" && np.input_size() == 3) {
      auto a = constant_values(np.input(0)), b = constant_values(np.input(1)), d = constant_values(np.input(2));
      if (a && b && d && a->size() == 1 && b->size() == 1 && d->size() == 1 && (*d)[0] != 0) {
        const double n = std::ceil(((*b)[0] - (*a)[0]) / (*d)[0]);
        if (n > double(kMaxTensorElements))
          throw CompileError(node_who(np) + ": the range has " + std::to_string(n) + " elements, more than " +
                             std::to_string(kMaxTensorElements) + ", Kiln's limit for one tensor");
      }
    }
  }

  void graph(const onnx::GraphProto& g, bool top_level) {
    const std::string where = top_level ? "" : " of subgraph " + in_quotes(g.name());
    std::set<std::string> defined, inputs;
    auto define = [&](const std::string& name, const std::string& kind) {
      if (name.empty()) return;
      if (!defined.insert(name).second)
        throw CompileError(kind + " " + in_quotes(name) + where + " reuses a name already defined in the graph");
    };
    for (const auto& t : g.initializer()) {
      define(t.name(), "initializer");
      tensor(t, "initializer " + in_quotes(t.name()), top_level);
      ranks_[t.name()] = t.dims_size();
      constants_[t.name()] = &t;
      onnx::TypeProto& type = types_[t.name()];
      type.mutable_tensor_type()->set_elem_type(t.data_type());
      for (auto d : t.dims()) type.mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(d);
    }
    for (const auto& vi : g.input()) {
      if (!inputs.insert(vi.name()).second)
        throw CompileError("graph input " + in_quotes(vi.name()) + where + " is listed twice");
      if (!defined.count(vi.name())) define(vi.name(), "graph input");
      value_info(vi, "graph input");
    }
    for (const auto& vi : g.value_info()) value_info(vi, "value_info");
    for (const auto& vi : g.output()) value_info(vi, "graph output");
    if (g.sparse_initializer_size() > 0) throw CompileError("sparse initializers are not supported");

    std::set<std::string> used;
    for (const auto& np : g.node()) {
      arity(np);
      graph_attributes(np);
      attribute_rules(np);
      rank_rules(np);
      input_rules(np);
      for (const auto& in : np.input()) used.insert(in);
      for (const auto& a : np.attribute()) {
        const std::string what = node_who(np) + " attribute " + in_quotes(a.name());
        if (a.type() == onnx::AttributeProto::SPARSE_TENSOR || a.type() == onnx::AttributeProto::SPARSE_TENSORS)
          throw CompileError(what + ": sparse tensors are not supported");
        if (a.has_t()) tensor(a.t(), what, false);
        attribute_tensor_rules(np, a, what);
        for (const auto& t : a.tensors()) tensor(t, what, false);
        if (a.has_g()) subgraph(a.g(), used);
        for (const auto& sg : a.graphs()) subgraph(sg, used);
        if (np.op_type() == "Constant" && a.has_t() && np.output_size() == 1) {
          ranks_[np.output(0)] = a.t().dims_size();
          constants_[np.output(0)] = &a.t();
        }
      }
      infer_types(np);
      for (const auto& out : np.output()) define(out, node_who(np) + " output");
    }
    if (!top_level) return;
    std::set<std::string> outputs;
    for (const auto& vi : g.output()) {
      if (!outputs.insert(vi.name()).second) throw CompileError("graph output " + in_quotes(vi.name()) + " is listed twice");
      if (!defined.count(vi.name()))
        throw CompileError("graph output " + in_quotes(vi.name()) + " is not produced by any node, input or initializer");
    }
    if (checks_.warn)
      for (const auto& vi : g.input())
        if (!used.count(vi.name()) && !outputs.count(vi.name()))
          checks_.warn("graph input " + in_quotes(vi.name()) + " is not used by any node");
  }

  // Names a subgraph reads from its outer scope count as used there.
  void subgraph(const onnx::GraphProto& sg, std::set<std::string>& used) {
    graph(sg, false);
    collect_uses(sg, used);
  }
  static void collect_uses(const onnx::GraphProto& g, std::set<std::string>& used) {
    for (const auto& np : g.node()) {
      for (const auto& in : np.input()) used.insert(in);
      for (const auto& a : np.attribute()) {
        if (a.has_g()) collect_uses(a.g(), used);
        for (const auto& sg : a.graphs()) collect_uses(sg, used);
      }
    }
    for (const auto& vi : g.output()) used.insert(vi.name());
  }

  const ModelProtoChecks& checks_;
  std::map<std::string, int64_t> opsets_;
  std::map<std::string, int64_t> ranks_;  // declared ranks (inputs, value_info, initializers, Constant outputs), then inferred ones
  std::unordered_map<std::string, onnx::TypeProto> types_;  // declared types, then inferred ones (infer_types)
  std::map<std::string, const onnx::TensorProto*> constants_;  // initializers and Constant values by name
  std::map<std::string, std::vector<int64_t>> ints_;           // integer constants read by constant_values
};

}  // namespace

void validate_model_proto(const onnx::ModelProto& model, int64_t opset, const ModelProtoChecks& checks) {
  std::map<std::string, int64_t> opsets;
  for (const auto& imp : model.opset_import()) opsets[is_default_domain(imp.domain()) ? "" : imp.domain()] = imp.version();
  opsets[""] = opset;
  Validator(std::move(opsets), checks).model(model);
}

void validate_node_proto(const onnx::NodeProto& np, int64_t opset, const std::map<std::string, int64_t>& ranks,
                         const std::map<std::string, const onnx::TensorProto*>& constants) {
  static const ModelProtoChecks no_files;
  Validator({{is_default_domain(np.domain()) ? "" : np.domain(), opset}}, no_files).node(np, ranks, constants);
}

void check_constant_indices(const Graph& graph) {
  for (const auto& np : graph.nodes) {
    const Node& n = *np;
    if (!n.domain.empty()) continue;
    const std::string& op = n.op_type;
    const bool gather = op == "Gather" || op == "GatherElements";
    const bool scatter = op == "Scatter" || op == "ScatterElements";
    const bool nd = op == "GatherND" || op == "ScatterND";
    if (!gather && !scatter && !nd) continue;
    const Value* data = n.input(0);
    const Value* idx = n.input(1);
    if (!data || !idx || !idx->is_constant() || !data->shape_known) continue;
    const Shape& ds = data->shape;
    const int64_t r = int64_t(ds.size());
    const std::vector<int64_t> v = idx->constant->to_int64s();
    auto bad = [&](int64_t index, int64_t dim) {
      throw CompileError(n.describe() + ": constant index " + std::to_string(index) + " in " + in_quotes(idx->name) +
                         " is out of range for a dimension of " + std::to_string(dim) + " (data " + in_quotes(data->name) +
                         " has shape " + shape_str(ds) + ")");
    };
    if (!nd) {
      int64_t axis = n.attr_int("axis", 0);
      if (r == 0) continue;
      if (axis < -r || axis >= r) continue;  // the lowering names a bad axis
      if (axis < 0) axis += r;
      const int64_t dim = ds[size_t(axis)];
      for (auto i : v)
        if (i < -dim || i >= dim) bad(i, dim);
      continue;
    }
    // GatherND / ScatterND: the last indices dimension holds coordinates into
    // data's dimensions batch_dims, batch_dims + 1, ...
    const Shape& is = idx->shape;
    if (is.empty()) continue;
    const int64_t k = is.back(), b = op == "GatherND" ? n.attr_int("batch_dims", 0) : 0;
    if (k < 1 || b < 0 || b + k > r) continue;  // the lowering names the bad depth
    for (size_t j = 0; j < v.size(); ++j) {
      const int64_t dim = ds[size_t(b + int64_t(j % size_t(k)))];
      if (v[j] < -dim || v[j] >= dim) bad(v[j], dim);
    }
  }
}

}  // namespace kiln
