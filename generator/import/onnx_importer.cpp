#include "import/onnx_importer.h"

#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <fstream>
#include <set>
#include <sstream>

#include "import/tensor_proto.h"
#include "util/error.h"

namespace kiln {

namespace fs = std::filesystem;

namespace {

// ONNX error texts span several lines; the CLI promises one.
std::string one_line(std::string s) {
  for (auto& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

bool is_default_domain(const std::string& d) { return d.empty() || d == "ai.onnx"; }

AttrValue convert_attribute(const onnx::AttributeProto& a, const Node& n, const fs::path& base_dir) {
  using A = onnx::AttributeProto;
  switch (a.type()) {
    case A::INT: return int64_t(a.i());
    case A::FLOAT: return double(a.f());
    case A::STRING: return a.s();
    case A::INTS: return std::vector<int64_t>(a.ints().begin(), a.ints().end());
    case A::FLOATS: return std::vector<double>(a.floats().begin(), a.floats().end());
    case A::STRINGS: return std::vector<std::string>(a.strings().begin(), a.strings().end());
    case A::TENSOR:
      return constant_from_tensor_proto(a.t(), base_dir, n.describe() + " attribute '" + a.name() + "'");
    default:
      throw CompileError(n.describe() + ": attribute '" + a.name() + "' of type " + A::AttributeType_Name(a.type()) +
                         " is not supported");
  }
}

// Type and static shape of a value from its ValueInfoProto; returns false when the
// shape is unknown or has a symbolic/unknown dimension.
bool read_value_info(const onnx::ValueInfoProto& vi, DType* dtype, Shape* shape, std::string* why) {
  if (!vi.type().has_tensor_type()) {
    *why = "is not a tensor (sequences, maps and optionals are not supported yet)";
    return false;
  }
  const auto& tt = vi.type().tensor_type();
  if (!dtype_is_known(tt.elem_type())) {
    *why = "has unsupported element type " + std::to_string(tt.elem_type());
    return false;
  }
  *dtype = DType(tt.elem_type());
  if (!tt.has_shape()) {
    *why = "has no known shape";
    return false;
  }
  shape->clear();
  for (const auto& d : tt.shape().dim()) {
    if (!d.has_dim_value() || d.dim_value() < 0) {
      *why = "has dynamic dimension '" + (d.has_dim_param() ? d.dim_param() : std::string("?")) + "'";
      return false;
    }
    shape->push_back(d.dim_value());
  }
  return true;
}

}  // namespace

std::unique_ptr<Graph> import_onnx(const fs::path& model_path, const ImportOptions& options) {
  std::ifstream in(model_path, std::ios::binary);
  if (!in) throw CompileError("cannot open model file '" + model_path.string() + "'");
  std::stringstream buf;
  buf << in.rdbuf();
  onnx::ModelProto model;
  if (!model.ParseFromString(buf.str()))
    throw CompileError("'" + model_path.string() + "' is not a valid ONNX model (truncated or corrupt protobuf)");
  if (!model.has_graph()) throw CompileError("'" + model_path.string() + "' has no graph");

  // Opsets.
  int64_t opset = -1;
  for (const auto& imp : model.opset_import()) {
    if (is_default_domain(imp.domain())) opset = imp.version();
  }
  if (opset < 0) throw CompileError("model imports no default-domain (ai.onnx) opset");
  if (opset < kMinOpset || opset > kMaxOpset)
    throw CompileError("model uses opset " + std::to_string(opset) + "; Kiln supports ai.onnx opsets " +
                       std::to_string(kMinOpset) + " to " + std::to_string(kMaxOpset));

  // Apply user input shapes before checking, so inference sees them.
  auto* g = model.mutable_graph();
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
    if (!used_overrides.count(name)) throw CompileError("--input-shape names '" + name + "', which is not a graph input");

  try {
    // The path form resolves external data files relative to the model.
    bool external = false;
    for (const auto& t : g->initializer())
      external |= t.has_data_location() && t.data_location() == onnx::TensorProto::EXTERNAL;
    if (external) onnx::checker::check_model(model_path.string());
    else
      onnx::checker::check_model(model);
  } catch (const std::exception& e) {
    throw CompileError("model check failed: " + one_line(e.what()));
  }
  try {
    onnx::ShapeInferenceOptions so{/*check_type=*/true, /*error_mode=*/1, /*enable_data_propagation=*/true};
    onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(), so);
  } catch (const std::exception& e) {
    throw CompileError("shape inference failed: " + one_line(e.what()));
  }

  const fs::path base_dir = model_path.parent_path();
  auto graph = std::make_unique<Graph>();
  graph->name = g->name();
  graph->opset = opset;

  // Initializers are constants; an initializer that is also a graph input is a
  // default the caller cannot override on a microcontroller, so it stays constant.
  for (const auto& t : g->initializer()) {
    auto c = constant_from_tensor_proto(t, base_dir, "initializer '" + t.name() + "'");
    Value* v = graph->add_value(t.name(), c->dtype(), c->shape());
    v->constant = c;
  }
  if (g->sparse_initializer_size() > 0) throw CompileError("sparse initializers are not supported");

  // Types/shapes known after inference.
  std::map<std::string, const onnx::ValueInfoProto*> infos;
  for (const auto& vi : g->input()) infos[vi.name()] = &vi;
  for (const auto& vi : g->value_info()) infos[vi.name()] = &vi;
  for (const auto& vi : g->output()) infos[vi.name()] = &vi;

  auto make_value = [&](const std::string& name, const std::string& who) -> Value* {
    auto it = infos.find(name);
    DType dt;
    Shape shape;
    std::string why = "has no type information after shape inference";
    if (it == infos.end() || !read_value_info(*it->second, &dt, &shape, &why))
      throw CompileError(who + ": value '" + name + "' " + why +
                         " (Kiln needs static shapes; pass --input-shape NAME=D0,D1,... for dynamic inputs)");
    return graph->add_value(name, dt, shape);
  };

  for (const auto& vi : g->input()) {
    if (graph->find_value(vi.name())) continue;  // initializer with a default
    Value* v = make_value(vi.name(), "graph input");
    v->is_graph_input = true;
    graph->inputs.push_back(v);
  }

  std::set<std::string> node_names;
  int index = 0;
  for (const auto& np : g->node()) {
    std::string name = np.name().empty() ? np.op_type() + "_" + std::to_string(index) : np.name();
    while (node_names.count(name)) name += "_" + std::to_string(index);
    node_names.insert(name);
    ++index;
    std::string who = np.op_type() + " '" + name + "'";
    if (!is_default_domain(np.domain()))
      throw CompileError(who + ": operator domain '" + np.domain() + "' is not supported");

    // Constant nodes become constant values directly.
    if (np.op_type() == "Constant") {
      Node tmp;
      tmp.op_type = "Constant";
      tmp.name = name;
      if (np.attribute_size() != 1) throw CompileError(who + ": expected exactly one attribute");
      const auto& a = np.attribute(0);
      ConstantPtr c;
      if (a.name() == "value") c = constant_from_tensor_proto(a.t(), base_dir, who);
      else if (a.name() == "value_float") c = Constant::from_floats({}, {a.f()});
      else if (a.name() == "value_floats") c = Constant::from_floats({int64_t(a.floats_size())}, {a.floats().begin(), a.floats().end()});
      else if (a.name() == "value_int") c = Constant::from_int64s({}, {a.i()});
      else if (a.name() == "value_ints") c = Constant::from_int64s({int64_t(a.ints_size())}, {a.ints().begin(), a.ints().end()});
      else throw CompileError(who + ": Constant attribute '" + a.name() + "' is not supported");
      Value* v = graph->add_value(np.output(0), c->dtype(), c->shape());
      v->constant = c;
      continue;
    }

    std::vector<Value*> ins;
    for (const auto& in_name : np.input()) {
      if (in_name.empty()) {
        ins.push_back(nullptr);
        continue;
      }
      Value* v = graph->find_value(in_name);
      if (!v) throw CompileError(who + ": input '" + in_name + "' is not produced by any earlier node");
      ins.push_back(v);
    }
    // Trailing omitted inputs carry no meaning.
    while (!ins.empty() && ins.back() == nullptr) ins.pop_back();
    std::vector<Value*> outs;
    for (const auto& out_name : np.output()) {
      if (out_name.empty()) {
        // An omitted optional output: give it a private name so the node keeps its arity.
        outs.push_back(graph->add_value(graph->unique_name(name + "_unused"), DType::Undefined, {}));
        continue;
      }
      outs.push_back(make_value(out_name, who));
    }
    Node* n = graph->add_node(np.op_type(), name, ins, outs);
    for (const auto& a : np.attribute()) n->attrs[a.name()] = convert_attribute(a, *n, base_dir);
  }

  for (const auto& vi : g->output()) {
    Value* v = graph->find_value(vi.name());
    if (!v) throw CompileError("graph output '" + vi.name() + "' is not produced by any node");
    v->is_graph_output = true;
    graph->outputs.push_back(v);
  }
  return graph;
}

}  // namespace kiln
