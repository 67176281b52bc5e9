#include "onnx/model_to_graph.h"

#include <onnx/onnx_pb.h>

#include <map>
#include <vector>

#include "onnx/graph_conversion.h"
#include "onnx/node_conversion.h"
#include "onnx/tensor_proto.h"
#include "util/error.h"
#include "util/quoted.h"

namespace kiln {

namespace fs = std::filesystem;

// Type and static shape of a value from its ValueInfoProto; returns false when the
// shape is unknown or has a symbolic/unknown dimension.
bool read_value_info(const onnx::ValueInfoProto& vi, DType* dtype, Shape* shape, std::string* why) {
  if (!vi.type().has_tensor_type()) {
    const auto& t = vi.type();
    *why = t.has_optional_type() ? "is an optional; Kiln compiles tensors and sequences, not optional-typed values"
           : t.has_map_type()    ? "is a map, which Kiln does not support"
           : t.has_sequence_type() ? "is a sequence where Kiln expects a tensor"
                                   : "is not a tensor";
    return false;
  }
  const auto& tt = vi.type().tensor_type();
  if (!dtype_is_known(tt.elem_type())) {
    *why = "has element type " +
           (onnx::TensorProto::DataType_IsValid(tt.elem_type())
                ? onnx::TensorProto::DataType_Name(onnx::TensorProto::DataType(tt.elem_type()))
                : std::to_string(tt.elem_type())) +
           ", which Kiln does not support";
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
      *why = "has dynamic dimension " + in_quotes(d.has_dim_param() ? d.dim_param() : std::string("?"));
      return false;
    }
    shape->push_back(d.dim_value());
  }
  return true;
}

namespace {

// Reads one checked, shape-inferred GraphProto into a new Graph, in the order the
// IR wants: constants, then graph inputs, then nodes (the model's order), then outputs.
class GraphReader {
 public:
  GraphReader(const onnx::GraphProto& g, const GraphSource& source, const ImportOptions& options)
      : g_(g), source_(source), options_(options), graph_(std::make_unique<Graph>()) {
    graph_->name = g.name();
    graph_->opset = source.opset;
    // Types and shapes known after inference.
    for (const auto& vi : g.input()) infos_[vi.name()] = &vi;
    for (const auto& vi : g.value_info()) infos_[vi.name()] = &vi;
    for (const auto& vi : g.output()) infos_[vi.name()] = &vi;
  }

  std::unique_ptr<Graph> read() {
    read_initializers();
    read_inputs();
    std::set<std::string> node_names;
    int index = 0;
    for (const auto& np : g_.node()) read_node(np, index++, node_names);
    read_outputs();
    return std::move(graph_);
  }

 private:
  // Initializers are constants; an initializer that is also a graph input is a
  // default the caller cannot override on a microcontroller, so it stays constant.
  void read_initializers() {
    for (const auto& t : g_.initializer()) {
      const std::string what = "initializer " + in_quotes(t.name());
      ConstantPtr c = dtype_is_known(t.data_type()) ? sliced_initializer(*source_.bytes, t.name(), DType(t.data_type()),
                                                                         {t.dims().begin(), t.dims().end()}, what)
                                                    : nullptr;
      if (!c) c = constant_from_tensor_proto(t, source_.base_dir, what);
      Value* v = graph_->add_value(t.name(), c->dtype(), c->shape());
      v->constant = c;
    }
    if (g_.sparse_initializer_size() > 0) throw CompileError("sparse initializers are not supported");
  }

  // `allow_unknown`: a node output whose shape ONNX could not infer before folding
  // (e.g. a Reshape whose target shape is computed by a Shape->...->Concat chain)
  // is created with shape_known = false; the driver re-infers it after folding.
  Value* make_value(const std::string& name, const std::string& who, bool allow_unknown) {
    auto it = infos_.find(name);
    // A sequence of tensors: no shape; sequence/resolve_sequences.h replaces it by its elements.
    if (it != infos_.end() && it->second->type().has_sequence_type()) {
      const auto& st = it->second->type().sequence_type();
      if (!st.has_elem_type() || !st.elem_type().has_tensor_type())
        throw CompileError(who + ": value " + in_quotes(name) + " is a sequence of non-tensors, which Kiln does not support");
      const int32_t et = st.elem_type().tensor_type().elem_type();
      Value* v = graph_->add_value(name, dtype_is_known(et) ? DType(et) : DType::Undefined, {});
      v->is_sequence = true;
      v->shape_known = false;
      return v;
    }
    DType dt = DType::Undefined;
    Shape shape;
    std::string why = "has no type information after shape inference";
    if (it == infos_.end() || !read_value_info(*it->second, &dt, &shape, &why)) {
      bool is_tensor = it == infos_.end() || it->second->type().has_tensor_type() || !it->second->has_type();
      const bool shape_problem = why.find("shape") != std::string::npos || why.find("dimension") != std::string::npos;
      if (!allow_unknown || !is_tensor)
        throw CompileError(who + ": value " + in_quotes(name) + " " + why +
                           (shape_problem ? " (Kiln needs static shapes; pass --input-shape NAME=D0,D1,... for dynamic inputs)"
                                          : ""));
      if (it != infos_.end() && it->second->type().has_tensor_type() &&
          dtype_is_known(it->second->type().tensor_type().elem_type()))
        dt = DType(it->second->type().tensor_type().elem_type());
      Value* v = graph_->add_value(name, dt, {});
      v->shape_known = false;
      return v;
    }
    return graph_->add_value(name, dt, shape);
  }

  void read_inputs() {
    size_t input_position = 0;
    std::set<std::string> used_sequence_inputs;
    for (const auto& vi : g_.input()) {
      if (Value* c = graph_->find_value(vi.name())) {  // initializer with a default, or --input-value
        if (source_.bound && source_.bound->count(vi.name()))
          graph_->bound_inputs.push_back({vi.name(), input_position++, c->constant});
        continue;
      }
      const size_t position = input_position++;
      if (vi.type().has_sequence_type()) {
        used_sequence_inputs.insert(vi.name());
        read_sequence_input(vi, position);
        continue;
      }
      Value* v = make_value(vi.name(), "graph input", false);
      v->is_graph_input = true;
      graph_->inputs.push_back(v);
    }
    for (const auto& [name, _] : options_.sequence_inputs)
      if (!used_sequence_inputs.count(name))
        throw CompileError("--sequence-input names " + in_quotes(name) + ", which is not a sequence-typed graph input");
  }

  // A sequence input of N elements is N tensor inputs <name>_0.. (shapes from
  // --sequence-input) feeding a SequenceConstruct; see docs/user-guide.md.
  void read_sequence_input(const onnx::ValueInfoProto& vi, size_t position) {
    auto sit = options_.sequence_inputs.find(vi.name());
    if (sit == options_.sequence_inputs.end())
      throw CompileError("graph input " + in_quotes(vi.name()) + " is a sequence; pass its element count and shapes with " +
                         "--sequence-input " + vi.name() + "=COUNT:D0,D1,...");
    Value* seq = make_value(vi.name(), "graph input", false);
    if (seq->dtype == DType::Undefined)
      throw CompileError("graph input " + in_quotes(vi.name()) + " is a sequence of an element type Kiln does not support");
    SequenceInterface si;
    si.name = vi.name();
    si.is_input = true;
    si.position = position;
    si.first = graph_->inputs.size();
    si.count = sit->second.size();
    std::vector<Value*> elems;
    for (size_t i = 0; i < sit->second.size(); ++i) {
      const std::string en = vi.name() + "_" + std::to_string(i);
      if (graph_->find_value(en))
        throw CompileError("graph input " + in_quotes(vi.name()) + ": element name " + in_quotes(en) + " is already used in the model");
      Value* e = graph_->add_value(en, seq->dtype, sit->second[i]);
      e->is_graph_input = true;
      graph_->inputs.push_back(e);
      elems.push_back(e);
    }
    Node* n = graph_->add_node(elems.empty() ? "SequenceEmpty" : "SequenceConstruct",
                               graph_->unique_name(vi.name() + ".construct"), elems, {seq});
    if (elems.empty()) n->attrs["dtype"] = int64_t(seq->dtype);
    graph_->sequence_io.push_back(si);
  }

  void read_node(const onnx::NodeProto& np, int index, std::set<std::string>& node_names) {
    std::string name = np.name().empty() ? np.op_type() + "_" + std::to_string(index) : np.name();
    while (node_names.count(name)) name += "_" + std::to_string(index);
    node_names.insert(name);
    std::string who = np.op_type() + " " + in_quotes(name);
    // Besides ai.onnx only the training optimizers' domain is known (lowered in
    // lower/ops/optimizer.cpp); their op names cannot be mistaken for ai.onnx ops
    // by the folder, which only knows default-domain op types.
    if (!is_default_domain(np.domain()) && np.domain() != "ai.onnx.preview.training")
      throw CompileError(who + ": operator domain " + in_quotes(np.domain()) + " is not supported");

    // Constant nodes become constant values directly.
    if (np.op_type() == "Constant") {
      ConstantPtr c = decode_constant_node(np, who, source_.base_dir);
      Value* v = graph_->add_value(np.output(0), c->dtype(), c->shape());
      v->constant = c;
      return;
    }

    std::vector<Value*> ins;
    for (const auto& in_name : np.input()) {
      if (in_name.empty()) {
        ins.push_back(nullptr);
        continue;
      }
      Value* v = graph_->find_value(in_name);
      if (!v) throw CompileError(who + ": input " + in_quotes(in_name) + " is not produced by any earlier node");
      ins.push_back(v);
    }
    // Subgraphs (If branches, Loop / Scan / SequenceMap bodies) become IR graphs held
    // by the node; the values of this graph they read are the node's last inputs
    // (onnx/graph_conversion.h). Control flow is lowered by its own pass
    // (controlflow/control_flow.h).
    std::vector<const onnx::AttributeProto*> attr_protos;
    for (const auto& a : np.attribute()) attr_protos.push_back(&a);
    SubgraphContext context{source_.base_dir, source_.opset};
    ConvertedSubgraphs sub = convert_graph_attributes(
        attr_protos, who, context, [&](const std::string& nm) { return graph_->find_value(nm) != nullptr; });
    // Trailing omitted inputs carry no meaning (a Loop's keep their positions: its
    // loop-carried values follow).
    if (sub.graphs.empty())
      while (!ins.empty() && ins.back() == nullptr) ins.pop_back();
    for (const auto& nm : sub.captured) ins.push_back(graph_->find_value(nm));
    std::vector<Value*> outs;
    for (const auto& out_name : np.output()) {
      if (out_name.empty()) {
        // An omitted optional output: give it a private name so the node keeps its arity.
        outs.push_back(graph_->add_value(graph_->unique_name(name + "_unused"), DType::Undefined, {}));
        continue;
      }
      outs.push_back(make_value(out_name, who, true));
    }
    Node* n = graph_->add_node(np.op_type(), name, ins, outs);
    if (!is_default_domain(np.domain())) n->domain = np.domain();
    for (const auto& a : np.attribute()) {
      auto sg = sub.graphs.find(a.name());
      if (sg != sub.graphs.end()) n->attrs[a.name()] = sg->second;
      else n->attrs[a.name()] = convert_attribute(a, n->describe(), source_.base_dir);
    }
    if (!sub.captured.empty()) n->attrs["captured"] = sub.captured;
  }

  void read_outputs() {
    for (const auto& vi : g_.output()) {
      Value* v = graph_->find_value(vi.name());
      if (!v) throw CompileError("graph output " + in_quotes(vi.name()) + " is not produced by any node");
      v->is_graph_output = true;
      graph_->outputs.push_back(v);
    }
  }

  const onnx::GraphProto& g_;
  const GraphSource& source_;
  const ImportOptions& options_;
  std::unique_ptr<Graph> graph_;
  std::map<std::string, const onnx::ValueInfoProto*> infos_;
};

}  // namespace

std::unique_ptr<Graph> model_to_graph(const onnx::ModelProto& model, const GraphSource& source,
                                      const ImportOptions& options) {
  return GraphReader(model.graph(), source, options).read();
}

}  // namespace kiln
