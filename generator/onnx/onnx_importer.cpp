#include "onnx/onnx_importer.h"

#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>
#include <onnx/version_converter/convert.h>

#include <cmath>
#include <map>
#include <set>

#include "onnx/model_bytes.h"
#include "onnx/model_to_graph.h"
#include "onnx/newer_opsets.h"
#include "onnx/node_conversion.h"
#include "onnx/node_validation.h"
#include "util/error.h"
#include "util/fault_guard.h"
#include "util/quoted.h"

namespace kiln {

namespace fs = std::filesystem;

namespace {

// ONNX's version converter rebuilds initializers from their bytes and drops
// external-data references, so an initializer sliced out by load_model_bytes would
// come back empty. Old-opset models get their raw_data back before conversion.
void restore_sliced_initializers(onnx::ModelProto& model, ModelBytes& mb) {
  for (auto& t : *model.mutable_graph()->mutable_initializer()) {
    auto it = mb.initializer_data.find(t.name());
    if (it == mb.initializer_data.end()) continue;
    t.set_raw_data(reinterpret_cast<const char*>(mb.file->data()) + it->second.offset, it->second.size);
    t.clear_external_data();
    t.clear_data_location();
  }
  mb.initializer_data.clear();
}

// PRelu before opset 7 applies a 1-D slope of C values per channel (axis 1), as
// PyTorch's PReLU exports it; from opset 7 the slope broadcasts numpy-style (from
// the last axis). The converter's adapter keeps the slope as it is, so an
// initializer slope [C] of an input [N, C, d...] becomes [C, 1, ...] here.
void make_prelu_slopes_per_channel(onnx::ModelProto& model) {
  auto* g = model.mutable_graph();
  std::map<std::string, const onnx::TypeProto*> types;
  for (const auto& v : g->input()) types[v.name()] = &v.type();
  for (const auto& v : g->value_info()) types[v.name()] = &v.type();
  for (const auto& np : g->node()) {
    if (np.op_type() != "PRelu" || !is_default_domain(np.domain()) || np.input_size() != 2) continue;
    auto ti = types.find(np.input(0));
    if (ti == types.end() || !ti->second->has_tensor_type() || !ti->second->tensor_type().has_shape()) continue;
    const auto& xs = ti->second->tensor_type().shape();
    if (xs.dim_size() < 3 || !xs.dim(1).has_dim_value()) continue;  // rank 2: [C] already aligns with axis 1
    for (auto& t : *g->mutable_initializer()) {
      if (t.name() != np.input(1) || t.dims_size() != 1 || t.dims(0) == 1 || t.dims(0) != xs.dim(1).dim_value()) continue;
      for (int k = 2; k < xs.dim_size(); ++k) t.add_dims(1);
    }
    for (auto& v : *g->mutable_input()) {  // an initializer also listed as a graph input keeps its declared shape in step
      if (v.name() != np.input(1) || !v.type().tensor_type().has_shape() || v.type().tensor_type().shape().dim_size() != 1) continue;
      if (v.type().tensor_type().shape().dim(0).dim_value() != xs.dim(1).dim_value()) continue;
      for (int k = 2; k < xs.dim_size(); ++k) v.mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(1);
    }
  }
}

// The TensorProto of --input-value `values` for graph input `vi` (its declared
// dtype and static shape).
onnx::TensorProto bound_input_tensor(const onnx::ValueInfoProto& vi, const std::vector<double>& values) {
  const std::string flag = "--input-value " + in_quotes(vi.name());
  DType dt = DType::Undefined;
  Shape shape;
  std::string why;
  if (!read_value_info(vi, &dt, &shape, &why))
    throw CompileError(flag + ": the input " + why + " (fix its shape with --input-shape)");
  if (shape_elements(shape) != int64_t(values.size()))
    throw CompileError(flag + ": " + std::to_string(values.size()) + " values given; the input is " + dtype_name(dt) +
                       " " + shape_str(shape) + " (" + std::to_string(shape_elements(shape)) + " elements)");
  onnx::TensorProto t;
  t.set_name(vi.name());
  t.set_data_type(int32_t(dt));
  for (int64_t d : shape) t.add_dims(d);
  auto integral = [&](double v, double lo, double hi) {
    if (v != std::floor(v) || v < lo || v > hi)
      throw CompileError(flag + ": " + std::to_string(v) + " is not a value of " + dtype_name(dt));
    return v;
  };
  for (double v : values) {
    switch (dt) {
      case DType::Float32: t.add_float_data(float(v)); break;
      case DType::Float64: t.add_double_data(v); break;
      case DType::Int64: t.add_int64_data(int64_t(integral(v, -9.2e18, 9.2e18))); break;
      case DType::Int32: t.add_int32_data(int32_t(integral(v, -2147483648.0, 2147483647.0))); break;
      case DType::Int16: t.add_int32_data(int32_t(integral(v, -32768, 32767))); break;
      case DType::Int8: t.add_int32_data(int32_t(integral(v, -128, 127))); break;
      case DType::UInt16: t.add_int32_data(int32_t(integral(v, 0, 65535))); break;
      case DType::UInt8: t.add_int32_data(int32_t(integral(v, 0, 255))); break;
      case DType::Bool: t.add_int32_data(int32_t(integral(v, 0, 1))); break;
      case DType::UInt32: t.add_uint64_data(uint64_t(integral(v, 0, 4294967295.0))); break;
      case DType::UInt64: t.add_uint64_data(uint64_t(integral(v, 0, 1.8e19))); break;
      default: throw CompileError(flag + ": inputs of type " + dtype_name(dt) + " cannot be given a value");
    }
  }
  return t;
}

}  // namespace

namespace {

onnx::ModelProto parse_model(const ModelBytes& mb, const fs::path& model_path) {
  onnx::ModelProto model;
  if (!model.ParseFromString(mb.proto))
    throw CompileError(in_quotes(model_path.string()) + " is not a valid ONNX model (truncated or corrupt protobuf)");
  if (!model.has_graph()) throw CompileError(in_quotes(model_path.string()) + " has no graph");
  return model;
}

// The model's default-domain (ai.onnx) opset.
int64_t default_opset(const onnx::ModelProto& model) {
  int64_t opset = -1;
  for (const auto& imp : model.opset_import())
    if (is_default_domain(imp.domain())) opset = imp.version();
  if (opset >= 0) return opset;
  // A model made only of other domains' ops (e.g. an ai.onnx.preview.training
  // optimizer step) needs no ai.onnx opset; one that uses ai.onnx ops does.
  for (const auto& np : model.graph().node())
    if (is_default_domain(np.domain()))
      throw CompileError("model imports no default-domain (ai.onnx) opset but node " + in_quotes(np.name()) + " (" +
                         np.op_type() + ") is an ai.onnx operator");
  return kMaxOpset;
}

// Old models (e.g. PyTorch exports at opset 6) are brought up with ONNX's own
// version converter, so no lowering has to carry pre-opset-7 semantics (legacy
// `broadcast` attributes, consumed_inputs). The target is opset 9, not 7: those
// exporters wrote int64 Constants (Reshape/Tile shapes), which only Constant-9
// accepts, so at 7 the converted model fails shape inference.
void convert_old_opset(onnx::ModelProto& model, ModelBytes& mb, int64_t opset) {
  try {
    // The converter's adapters need input shapes (e.g. for broadcasting rules).
    try {
      FaultScope scope("ONNX's shape inference of the opset-" + std::to_string(opset) + " model");
      onnx::shape_inference::InferShapes(model);
    } catch (const std::exception&) {
      // Not fatal here: shapes are inferred again, with errors reported, after conversion.
    }
    restore_sliced_initializers(model, mb);
    make_prelu_slopes_per_channel(model);
    FaultScope scope("ONNX's version converter (opset " + std::to_string(opset) + " to " +
                     std::to_string(kUpgradeOpset) + ")");
    model = onnx::version_conversion::ConvertVersion(model, int(kUpgradeOpset));
  } catch (const std::exception& e) {
    throw CompileError("model uses opset " + std::to_string(opset) + " and ONNX's version converter could not " +
                       "bring it to opset " + std::to_string(kUpgradeOpset) + ": " + onnx_message_line(e.what()));
  }
}

// Functions inlined, attributes and arities validated, and the model brought to an
// opset ONNX 1.12's checker and shape inference know. Returns that opset.
int64_t bring_to_known_opset(onnx::ModelProto& model, ModelBytes& mb, const fs::path& base_dir,
                             const ImportOptions& options) {
  int64_t opset = default_opset(model);
  // Model-local functions are inlined, and opsets 18..21 brought down to the
  // opset-17 forms ONNX 1.12's checker and shape inference know (onnx/newer_opsets.h).
  inline_model_functions(model);
  if (opset > kMaxOpset && opset <= kNewestOpset) {
    lower_newer_opset(model, opset, kMaxOpset, base_dir);
    opset = kMaxOpset;
  }
  // Before ONNX's converter, checker or shape inference see the model: they trust
  // attributes, arities and tensor lengths (onnx/node_validation.h).
  ModelProtoChecks checks;
  checks.base_dir = base_dir;
  checks.sliced_bytes = [&mb](const std::string& name) -> int64_t {
    auto it = mb.initializer_data.find(name);
    return it == mb.initializer_data.end() ? -1 : int64_t(it->second.size);
  };
  checks.warn = options.warn;
  validate_model_proto(model, opset, checks);
  if (opset >= 1 && opset < kMinOpset) {
    convert_old_opset(model, mb, opset);
    opset = kUpgradeOpset;
  }
  if (opset < kMinOpset || opset > kMaxOpset)
    throw CompileError("model uses opset " + std::to_string(opset) + "; Kiln supports ai.onnx opsets " +
                       std::to_string(kMinOpset) + " to " + std::to_string(kNewestOpset));
  return opset;
}

// --input-shape and --input-value, applied before checking so inference sees them.
// Returns the names of the inputs given a value.
std::set<std::string> apply_input_options(onnx::GraphProto* g, const ImportOptions& options) {
  std::set<std::string> used_overrides;
  for (auto& vi : *g->mutable_input()) {
    auto it = options.input_shapes.find(vi.name());
    if (it == options.input_shapes.end()) continue;
    used_overrides.insert(vi.name());
    auto* shp = vi.mutable_type()->mutable_tensor_type()->mutable_shape();
    shp->clear_dim();
    for (auto d : it->second) shp->add_dim()->set_dim_value(d);
  }
  for (const auto& [name, _] : options.input_shapes)
    if (!used_overrides.count(name)) throw CompileError("--input-shape names " + in_quotes(name) + ", which is not a graph input");
  // --input-value: the input becomes an initializer. It stays listed among the
  // graph's inputs (valid at every IR version) so that ONNX's inference and
  // Kiln's folding see a constant, and the API positions of the others hold.
  std::set<std::string> bound_names;
  for (const auto& [name, values] : options.input_values) {
    const onnx::ValueInfoProto* vi = nullptr;
    for (const auto& in : g->input())
      if (in.name() == name) vi = &in;
    if (!vi) throw CompileError("--input-value names " + in_quotes(name) + ", which is not a graph input");
    for (const auto& t : g->initializer())
      if (t.name() == name)
        throw CompileError("--input-value names " + in_quotes(name) + ", an initializer (already a constant)");
    *g->add_initializer() = bound_input_tensor(*vi, values);
    bound_names.insert(name);
  }
  return bound_names;
}

void check_model(const onnx::ModelProto& model, const ModelBytes& mb, const fs::path& model_path, bool on_disk) {
  try {
    // The path form resolves external data files relative to the model.
    bool external = mb.has_external_data;  // sliced initializers point at the model file itself: not external
    if (external && !on_disk) throw CompileError("a model held in memory cannot use external data");
    FaultScope scope("ONNX's model checker");
    if (external) onnx::checker::check_model(model_path.string());
    else
      onnx::checker::check_model(model);
  } catch (const std::exception& e) {
    throw CompileError("model check failed: " + onnx_message_line(e.what()));
  }
}

void infer_shapes(onnx::ModelProto& model) {
  FaultScope scope("ONNX's shape inference of the model");
  try {
    onnx::ShapeInferenceOptions so{/*check_type=*/true, /*error_mode=*/1, /*enable_data_propagation=*/true};
    onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(), so);
  } catch (const std::exception& e) {
    // ONNX infers both branches of an If, and a branch that the fixed input shapes
    // make dead may not type-check (PyTorch's Squeeze of a dimension that is not 1
    // behind If(dim == 1)). Such a model is inferred without stopping at errors:
    // Kiln's own per-node inference (node_shape_inference.h) rejects what is left
    // of a real error once folding has decided the Ifs.
    bool has_if = false;
    for (const auto& np : model.graph().node()) has_if |= np.op_type() == "If" && is_default_domain(np.domain());
    if (!has_if) throw CompileError("shape inference failed: " + onnx_message_line(e.what()));
    try {
      onnx::ShapeInferenceOptions lenient{/*check_type=*/true, /*error_mode=*/0, /*enable_data_propagation=*/true};
      onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(), lenient);
    } catch (const std::exception& e2) {
      throw CompileError("shape inference failed: " + onnx_message_line(e2.what()));
    }
  }
}

// `model_path` names the model in messages and, when `on_disk`, is the file ONNX's
// checker reads external data relative to.
std::unique_ptr<Graph> import_model_bytes(ModelBytes mb, const fs::path& model_path, bool on_disk,
                                          const ImportOptions& options) {
  onnx::ModelProto model = parse_model(mb, model_path);
  const fs::path base_dir = model_path.parent_path();
  const int64_t opset = bring_to_known_opset(model, mb, base_dir, options);
  const std::set<std::string> bound = apply_input_options(model.mutable_graph(), options);
  check_model(model, mb, model_path, on_disk);
  infer_shapes(model);
  return model_to_graph(model, GraphSource{&mb, base_dir, opset, &bound}, options);
}

}  // namespace

std::unique_ptr<Graph> import_onnx(const fs::path& model_path, const ImportOptions& options) {
  // Weights stay in the mapped file: protobuf only parses the metadata (model_bytes.h).
  ModelBytes mb;
  try {
    mb = load_model_bytes(model_path);
  } catch (const CompileError& e) {
    // Name the file: a user compiling several models must see which one is bad.
    std::string what = e.what();
    if (what.find(model_path.string()) != std::string::npos) throw;
    throw CompileError(in_quotes(model_path.string()) + ": " + what);
  }
  return import_model_bytes(std::move(mb), model_path, true, options);
}

std::unique_ptr<Graph> import_onnx_from_memory(std::vector<uint8_t> bytes, const ImportOptions& options) {
  return import_model_bytes(model_bytes_in_memory(std::move(bytes)), "model.onnx", false, options);
}

}  // namespace kiln
