#include "onnx/graph_conversion.h"

#include <onnx/onnx_pb.h>

#include <algorithm>

#include "onnx/node_conversion.h"
#include "onnx/tensor_proto.h"
#include "util/error.h"
#include "util/quoted.h"

namespace kiln {

namespace {

// A body value typed from what ONNX's inference says of it (`t` may be null).
Value* typed_value(Graph& g, const std::string& name, const onnx::TypeProto* t, const std::string& who) {
  Value* v = g.add_value(name, DType::Undefined, {});
  v->shape_known = false;
  if (!t) return v;
  if (t->has_sequence_type()) {
    const auto& st = t->sequence_type();
    if (!st.has_elem_type() || !st.elem_type().has_tensor_type())
      throw CompileError(who + ": subgraph value " + in_quotes(name) + " is a sequence of non-tensors, which Kiln does not support");
    const int32_t et = st.elem_type().tensor_type().elem_type();
    if (dtype_is_known(et)) v->dtype = DType(et);
    v->is_sequence = true;
    return v;
  }
  if (!t->has_tensor_type()) return v;
  const auto& tt = t->tensor_type();
  if (!dtype_is_known(tt.elem_type())) return v;
  v->dtype = DType(tt.elem_type());
  if (!tt.has_shape()) return v;
  Shape s;
  for (const auto& d : tt.shape().dim()) {
    if (!d.has_dim_value() || d.dim_value() < 0) return v;
    s.push_back(d.dim_value());
  }
  v->shape = s;
  v->shape_known = true;
  return v;
}

}  // namespace

ConvertedSubgraphs convert_graph_attributes(const std::vector<const onnx::AttributeProto*>& attrs,
                                            const std::string& who, const SubgraphContext& context,
                                            const std::function<bool(const std::string&)>& outer_defines) {
  ConvertedSubgraphs r;
  for (const onnx::AttributeProto* a : attrs) {
    if (a->type() != onnx::AttributeProto::GRAPH) continue;
    GraphPtr g = convert_subgraph(a->g(), who, context, outer_defines);
    for (const Value* c : g->captures)
      if (std::find(r.captured.begin(), r.captured.end(), c->name) == r.captured.end()) r.captured.push_back(c->name);
    r.graphs[a->name()] = std::move(g);
  }
  std::sort(r.captured.begin(), r.captured.end());
  return r;
}

GraphPtr convert_subgraph(const onnx::GraphProto& body, const std::string& who, const SubgraphContext& context,
                          const std::function<bool(const std::string&)>& outer_defines) {
  auto g = std::make_shared<Graph>();
  g->name = body.name();
  g->opset = context.opset;
  std::map<std::string, const onnx::TypeProto*> types;
  for (const auto& vi : body.value_info()) types[vi.name()] = &vi.type();
  for (const auto& vi : body.output()) types[vi.name()] = &vi.type();

  for (const auto& vi : body.input()) {
    Value* v = typed_value(*g, vi.name(), &vi.type(), who);
    v->is_graph_input = true;
    g->inputs.push_back(v);
  }
  for (const auto& t : body.initializer()) {
    ConstantPtr c = constant_from_tensor_proto(t, context.base_dir, who + " subgraph initializer " + in_quotes(t.name()));
    Value* v = g->add_value(t.name(), c->dtype(), c->shape());
    v->constant = c;
  }
  // A name of this body, or a capture (created on first use) of an enclosing one.
  auto lookup = [&](const std::string& nm) -> Value* {
    if (Value* v = g->find_value(nm)) return v;
    if (!outer_defines(nm)) return nullptr;
    Value* c = g->add_value(nm, DType::Undefined, {});
    c->shape_known = false;
    g->captures.push_back(c);
    return c;
  };
  auto defines_here = [&](const std::string& nm) { return g->find_value(nm) != nullptr || outer_defines(nm); };

  int index = 0;
  for (const auto& np : body.node()) {
    const std::string name = np.name().empty() ? np.op_type() + "_" + std::to_string(index) : np.name();
    ++index;
    const std::string nwho = np.op_type() + " " + in_quotes(name);
    const std::string domain = is_default_domain(np.domain()) ? "" : np.domain();
    if (np.op_type() == "Constant" && domain.empty()) {
      ConstantPtr c = decode_constant_node(np, nwho, context.base_dir);
      if (np.output_size() != 1) throw CompileError(nwho + ": expected exactly one output");
      Value* out = g->add_value(np.output(0), c->dtype(), c->shape());
      Node* n = g->add_node("Constant", name, {}, {out});
      n->attrs["value"] = c;
      continue;
    }
    std::vector<Value*> ins;
    for (const auto& in : np.input()) {
      if (in.empty()) {
        ins.push_back(nullptr);
        continue;
      }
      Value* v = lookup(in);
      if (!v) throw CompileError(nwho + ": input " + in_quotes(in) + " is not defined in the subgraph or its scope");
      ins.push_back(v);
    }
    std::vector<const onnx::AttributeProto*> attr_protos;
    for (const auto& a : np.attribute()) attr_protos.push_back(&a);
    ConvertedSubgraphs sub = convert_graph_attributes(attr_protos, nwho, context, defines_here);
    if (sub.graphs.empty())  // a Loop's omitted M / cond keep their positions
      while (!ins.empty() && ins.back() == nullptr) ins.pop_back();
    for (const auto& nm : sub.captured) ins.push_back(lookup(nm));
    std::vector<Value*> outs;
    for (const auto& out : np.output()) {
      if (out.empty()) {
        Value* v = g->add_value(g->unique_name(name + "_unused"), DType::Undefined, {});
        v->shape_known = false;
        outs.push_back(v);
        continue;
      }
      auto t = types.find(out);
      outs.push_back(typed_value(*g, out, t == types.end() ? nullptr : t->second, nwho));
    }
    Node* n = g->add_node(np.op_type(), name, ins, outs);
    n->domain = domain;
    for (const auto& a : np.attribute()) {
      auto s = sub.graphs.find(a.name());
      if (s != sub.graphs.end()) n->attrs[a.name()] = s->second;
      else n->attrs[a.name()] = convert_attribute(a, nwho, context.base_dir);
    }
    if (!sub.captured.empty()) n->attrs["captured"] = sub.captured;
  }
  for (const auto& o : body.output()) {
    Value* v = lookup(o.name());
    if (!v) throw CompileError(who + ": subgraph output " + in_quotes(o.name()) + " is not produced");
    g->outputs.push_back(v);
  }
  return g;
}

}  // namespace kiln
