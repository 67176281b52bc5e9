#include "onnx/node_shape_inference.h"

#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <memory>
#include <set>
#include <unordered_map>

#include "onnx/node_validation.h"
#include "util/checked_math.h"
#include "util/error.h"
#include "util/fault_guard.h"
#include "util/quoted.h"

namespace kiln {

namespace {

onnx::TensorProto to_tensor_proto(const std::string& name, const Constant& c) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(int32_t(c.dtype()));
  for (auto d : c.shape()) t.add_dims(d);
  std::string raw(c.size_bytes(), '\0');
  c.write_bytes(reinterpret_cast<uint8_t*>(raw.data()));
  t.set_raw_data(std::move(raw));
  return t;
}

void set_attribute(onnx::AttributeProto* a, const AttrValue& v) {
  using A = onnx::AttributeProto;
  if (auto* i = std::get_if<int64_t>(&v)) {
    a->set_type(A::INT);
    a->set_i(*i);
  } else if (auto* f = std::get_if<double>(&v)) {
    a->set_type(A::FLOAT);
    a->set_f(float(*f));
  } else if (auto* s = std::get_if<std::string>(&v)) {
    a->set_type(A::STRING);
    a->set_s(*s);
  } else if (auto* is = std::get_if<std::vector<int64_t>>(&v)) {
    a->set_type(A::INTS);
    for (auto x : *is) a->add_ints(x);
  } else if (auto* fs = std::get_if<std::vector<double>>(&v)) {
    a->set_type(A::FLOATS);
    for (auto x : *fs) a->add_floats(float(x));
  } else if (auto* ss = std::get_if<std::vector<std::string>>(&v)) {
    a->set_type(A::STRINGS);
    for (const auto& x : *ss) a->add_strings(x);
  } else if (auto* c = std::get_if<ConstantPtr>(&v)) {
    a->set_type(A::TENSOR);
    if (*c) *a->mutable_t() = to_tensor_proto("", **c);
  }
}

bool output_known(const Value* v) { return v->shape_known && v->dtype != DType::Undefined; }

}  // namespace

bool infer_node_shapes(Node& node) {
  // A node holding subgraphs (If, Loop, Scan, SequenceMap) is typed when control-flow
  // lowering or the sequence pass expands it, not here.
  for (const auto& [_, value] : node.attrs)
    if (std::holds_alternative<GraphPtr>(value)) return false;
  for (const Value* in : node.inputs)
    if (in && !output_known(in)) return false;
  const std::string domain = node.domain == "ai.onnx" ? "" : node.domain;
  const onnx::OpSchema* schema =
      onnx::OpSchemaRegistry::Schema(node.op_type, int(node.opset), domain);
  if (!schema || !schema->has_type_and_shape_inference_function()) return false;

  onnx::NodeProto np;
  np.set_op_type(node.op_type);
  np.set_domain(domain);
  np.set_name(node.name);
  for (const auto& [name, value] : node.attrs) {
    auto* a = np.add_attribute();
    a->set_name(name);
    set_attribute(a, value);
  }
  std::unordered_map<std::string, std::unique_ptr<onnx::TypeProto>> types;
  std::unordered_map<std::string, std::unique_ptr<onnx::TensorProto>> data;
  for (const Value* in : node.inputs) {
    if (!in) {
      np.add_input("");
      continue;
    }
    np.add_input(in->name);
    if (types.count(in->name)) continue;
    auto t = std::make_unique<onnx::TypeProto>();
    auto* tt = t->mutable_tensor_type();
    tt->set_elem_type(int32_t(in->dtype));
    auto* shp = tt->mutable_shape();
    for (auto d : in->shape) shp->add_dim()->set_dim_value(d);
    types[in->name] = std::move(t);
    if (in->is_constant()) data[in->name] = std::make_unique<onnx::TensorProto>(to_tensor_proto(in->name, *in->constant));
  }
  for (const Value* out : node.outputs) np.add_output(out->name);
  {
    // The rules every model node passed at import, now on the computed inputs
    // (a folded Range step of 0 would divide by zero inside ONNX's rule).
    std::map<std::string, int64_t> ranks;
    std::map<std::string, const onnx::TensorProto*> constants;
    for (const Value* in : node.inputs)
      if (in) ranks[in->name] = int64_t(in->shape.size());
    for (const auto& [k, v] : data) constants[k] = v.get();
    validate_node_proto(np, node.opset, ranks, constants);
  }

  std::unordered_map<std::string, onnx::TypeProto*> type_ptrs;
  for (auto& [k, v] : types) type_ptrs[k] = v.get();
  std::unordered_map<std::string, const onnx::TensorProto*> data_ptrs;
  for (auto& [k, v] : data) data_ptrs[k] = v.get();
  std::unordered_map<std::string, const onnx::SparseTensorProto*> no_sparse;
  onnx::shape_inference::InferenceContextImpl ctx(np, type_ptrs, data_ptrs, no_sparse);
  FaultScope scope("ONNX's shape inference of " + node.describe());
  try {
    schema->GetTypeAndShapeInferenceFunction()(ctx);
  } catch (const std::exception& e) {
    throw CompileError(node.describe() + ": shape inference failed: " + onnx_message_line(e.what()));
  }

  bool all = true;
  for (size_t i = 0; i < node.outputs.size(); ++i) {
    Value* out = node.outputs[i];
    if (output_known(out)) continue;
    const onnx::TypeProto* t = ctx.getOutputType(i);
    if (!t || !t->has_tensor_type()) {
      all = false;
      continue;
    }
    const auto& tt = t->tensor_type();
    if (out->dtype == DType::Undefined && dtype_is_known(tt.elem_type())) out->dtype = DType(tt.elem_type());
    bool static_shape = tt.has_shape();
    Shape shape;
    if (static_shape)
      for (const auto& d : tt.shape().dim()) {
        if (!d.has_dim_value() || d.dim_value() < 0) {
          static_shape = false;
          break;
        }
        shape.push_back(d.dim_value());
      }
    if (static_shape && out->dtype != DType::Undefined) {
      checked_elements(shape, node.describe() + ": output " + in_quotes(out->name));
      out->shape = shape;
      out->shape_known = true;
    } else {
      all = false;
    }
  }
  return all;
}

size_t infer_unknown_shapes(Graph& graph) {
  size_t resolved = 0;
  for (auto& n : graph.nodes) {
    bool pending = false;
    for (const Value* out : n->outputs) pending |= !output_known(out) && (!out->users.empty() || out->is_graph_output);
    if (pending && infer_node_shapes(*n)) ++resolved;
  }
  return resolved;
}

void require_static_shapes(const Graph& graph) {
  // Ops whose output shape depends on the values of their inputs: only a shape the
  // model declares can fix it (the kernel then checks the count at run time).
  static const std::set<std::string> value_dependent = {"NonZero", "Unique", "Compress", "NonMaxSuppression"};
  for (const auto& n : graph.nodes)
    for (const Value* out : n->outputs) {
      if (out->shape_known || (out->users.empty() && !out->is_graph_output)) continue;
      if (value_dependent.count(n->op_type))
        throw CompileError(n->describe() + ": the shape of output " + in_quotes(out->name) + " depends on the values of " +
                           n->op_type + "'s inputs; declare it statically in the model (it has a dim_param or no " +
                           "shape) — Kiln plans memory for that shape and the run fails if the data disagree");
      throw CompileError(n->describe() + ": output " + in_quotes(out->name) +
                         " has no static shape even after constant folding (it depends on run-time data; " +
                         "Kiln needs static shapes — pass --input-shape NAME=D0,D1,... for dynamic inputs)");
    }
}

}  // namespace kiln
