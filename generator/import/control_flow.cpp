#include "import/control_flow.h"

#include <algorithm>
#include <map>

#include "import/tensor_proto.h"
#include "util/error.h"

namespace kiln {

namespace {

AttrValue convert_plain_attribute(const onnx::AttributeProto& a, const std::string& who,
                                  const std::filesystem::path& base_dir) {
  using A = onnx::AttributeProto;
  switch (a.type()) {
    case A::INT: return int64_t(a.i());
    case A::FLOAT: return double(a.f());
    case A::STRING: return a.s();
    case A::INTS: return std::vector<int64_t>(a.ints().begin(), a.ints().end());
    case A::FLOATS: return std::vector<double>(a.floats().begin(), a.floats().end());
    case A::STRINGS: return std::vector<std::string>(a.strings().begin(), a.strings().end());
    case A::TENSOR: return constant_from_tensor_proto(a.t(), base_dir, who + " attribute '" + a.name() + "'");
    default:
      throw CompileError(who + ": attribute '" + a.name() + "' of type " + A::AttributeType_Name(a.type()) +
                         " is not supported inside a subgraph");
  }
}

// Static type of a subgraph value from shape inference's ValueInfo.
void value_type(const onnx::ValueInfoProto& vi, const std::string& who, DType* dt, Shape* shape) {
  if (!vi.type().has_tensor_type() || !vi.type().tensor_type().has_shape())
    throw CompileError(who + ": subgraph value '" + vi.name() + "' is not a tensor of known shape");
  const auto& tt = vi.type().tensor_type();
  *dt = DType(tt.elem_type());
  shape->clear();
  for (const auto& d : tt.shape().dim()) {
    if (!d.has_dim_value()) throw CompileError(who + ": subgraph value '" + vi.name() + "' has a dynamic dimension");
    shape->push_back(d.dim_value());
  }
}

class Flattener {
 public:
  explicit Flattener(const SubgraphScope& s) : s_(s), g_(*s.graph) {}

  // Imports one instance of `body`, its inputs bound to `bound`; returns its outputs.
  std::vector<Value*> import_body(const onnx::GraphProto& body, const std::vector<Value*>& bound,
                                  const std::string& prefix, const std::string& who) {
    if (size_t(body.input_size()) != bound.size())
      throw CompileError(who + ": subgraph '" + body.name() + "' takes " + std::to_string(body.input_size()) +
                         " inputs; " + std::to_string(bound.size()) + " are bound");
    std::map<std::string, Value*> local;
    for (int i = 0; i < body.input_size(); ++i) local[body.input(i).name()] = bound[size_t(i)];
    for (const auto& t : body.initializer()) {
      auto c = constant_from_tensor_proto(t, s_.base_dir, who + " subgraph initializer '" + t.name() + "'");
      Value* v = g_.add_value(g_.unique_name(prefix + t.name()), c->dtype(), c->shape());
      v->constant = c;
      local[t.name()] = v;
    }
    std::map<std::string, const onnx::ValueInfoProto*> infos;
    for (const auto& vi : body.value_info()) infos[vi.name()] = &vi;
    for (const auto& vi : body.output()) infos[vi.name()] = &vi;
    auto lookup = [&](const std::string& nm) -> Value* {
      auto it = local.find(nm);
      return it != local.end() ? it->second : s_.lookup(nm);
    };
    int index = 0;
    for (const auto& np : body.node()) {
      const std::string name = g_.unique_name(prefix + (np.name().empty() ? np.op_type() + "_" + std::to_string(index) : np.name()));
      ++index;
      const std::string nwho = np.op_type() + " '" + name + "'";
      if (!np.domain().empty() && np.domain() != "ai.onnx")
        throw CompileError(nwho + ": operator domain '" + np.domain() + "' is not supported");
      if (np.op_type() == "Constant") {
        if (np.attribute_size() != 1 || np.attribute(0).name() != "value")
          throw CompileError(nwho + ": only Constant(value=tensor) is supported inside a subgraph");
        auto c = constant_from_tensor_proto(np.attribute(0).t(), s_.base_dir, nwho);
        Value* v = g_.add_value(g_.unique_name(prefix + np.output(0)), c->dtype(), c->shape());
        v->constant = c;
        local[np.output(0)] = v;
        continue;
      }
      if (is_flattened_control_flow(np.op_type())) {
        // Nested control flow: the inner node sees this body's values first.
        SubgraphScope inner = s_;
        inner.lookup = lookup;
        inner.make_output = [&](const std::string& nm) { return make_local(nm, infos, prefix, nwho, &local); };
        flatten_control_flow(np, name, inner);
        continue;
      }
      std::vector<Value*> ins;
      for (const auto& in : np.input()) {
        if (in.empty()) {
          ins.push_back(nullptr);
          continue;
        }
        Value* v = lookup(in);
        if (!v) throw CompileError(nwho + ": input '" + in + "' is not defined in the subgraph or its scope");
        ins.push_back(v);
      }
      while (!ins.empty() && ins.back() == nullptr) ins.pop_back();
      std::vector<Value*> outs;
      for (const auto& out : np.output()) {
        if (out.empty()) outs.push_back(g_.add_value(g_.unique_name(name + "_unused"), DType::Undefined, {}));
        else outs.push_back(make_local(out, infos, prefix, nwho, &local));
      }
      Node* n = g_.add_node(np.op_type(), name, ins, outs);
      for (const auto& a : np.attribute()) n->attrs[a.name()] = convert_plain_attribute(a, nwho, s_.base_dir);
    }
    std::vector<Value*> outs;
    for (const auto& o : body.output()) {
      Value* v = lookup(o.name());
      if (!v) throw CompileError(who + ": subgraph output '" + o.name() + "' is not produced");
      outs.push_back(v);
    }
    return outs;
  }

  Value* make_local(const std::string& nm, const std::map<std::string, const onnx::ValueInfoProto*>& infos,
                    const std::string& prefix, const std::string& who, std::map<std::string, Value*>* local) {
    auto it = infos.find(nm);
    if (it == infos.end()) throw CompileError(who + ": subgraph value '" + nm + "' has no type after shape inference");
    DType dt;
    Shape shape;
    value_type(*it->second, who, &dt, &shape);
    Value* v = g_.add_value(g_.unique_name(prefix + nm), dt, shape);
    (*local)[nm] = v;
    return v;
  }

  Value* constant_shape(const Shape& s) {
    Value* v = g_.add_value(g_.unique_name("shape"), DType::Int64, {int64_t(s.size())});
    v->constant = Constant::from_int64s({int64_t(s.size())}, s);
    return v;
  }

  Value* reshape(Value* in, const Shape& s, const std::string& name) {
    if (in->shape == s) return in;
    Value* out = g_.add_value(g_.unique_name(name), in->dtype, s);
    g_.add_node("Reshape", g_.unique_name(name), {in, constant_shape(s)}, {out});
    return out;
  }

  void flatten_if(const onnx::NodeProto& np, const std::string& name) {
    const std::string who = "If '" + name + "'";
    const onnx::GraphProto *then_g = nullptr, *else_g = nullptr;
    for (const auto& a : np.attribute()) {
      if (a.name() == "then_branch") then_g = &a.g();
      if (a.name() == "else_branch") else_g = &a.g();
    }
    if (!then_g || !else_g || np.input_size() != 1) throw CompileError(who + ": malformed If");
    Value* cond = s_.lookup(np.input(0));
    if (!cond || cond->dtype != DType::Bool || cond->num_elements() != 1)
      throw CompileError(who + ": the condition must be a single bool");
    std::vector<Value*> t = import_body(*then_g, {}, name + ".then.", who);
    std::vector<Value*> e = import_body(*else_g, {}, name + ".else.", who);
    if (t.size() != size_t(np.output_size()) || e.size() != t.size())
      throw CompileError(who + ": branches and node disagree on the number of outputs");
    for (size_t i = 0; i < t.size(); ++i) {
      Value* out = s_.make_output(np.output(int(i)));
      if (t[i]->shape != out->shape || e[i]->shape != out->shape || t[i]->dtype != out->dtype ||
          e[i]->dtype != out->dtype)
        throw CompileError(who + ": output " + std::to_string(i) + " is " + shape_str(t[i]->shape) +
                           " in then_branch and " + shape_str(e[i]->shape) +
                           " in else_branch; Kiln needs one static type and shape");
      g_.add_node("KilnSelect", g_.unique_name(name + ".select"), {cond, t[i], e[i]}, {out});
    }
  }

  void flatten_scan(const onnx::NodeProto& np, const std::string& name, int64_t opset) {
    const std::string who = "Scan '" + name + "'";
    const onnx::GraphProto* body = nullptr;
    int64_t m = -1;
    std::map<std::string, std::vector<int64_t>> ints;
    for (const auto& a : np.attribute()) {
      if (a.name() == "body") body = &a.g();
      else if (a.name() == "num_scan_inputs") m = a.i();
      else if (a.type() == onnx::AttributeProto::INTS) ints[a.name()] = {a.ints().begin(), a.ints().end()};
    }
    if (!body || m < 1) throw CompileError(who + ": malformed Scan");
    // Opset 8 has a leading optional sequence_lens input and a batch dim on every
    // input and output (scan axis 1). Kiln takes batch 1 without sequence_lens and
    // reshapes the batch dim away around the body.
    const bool v8 = opset < 9;
    std::vector<Value*> ins;
    for (int i = v8 ? 1 : 0; i < np.input_size(); ++i) {
      Value* v = s_.lookup(np.input(i));
      if (!v) throw CompileError(who + ": input '" + np.input(i) + "' is not defined");
      ins.push_back(v);
    }
    if (v8 && np.input_size() > 0 && !np.input(0).empty())
      throw CompileError(who + ": sequence_lens is not supported (opset 8 Scan)");
    const size_t nstate = ins.size() - size_t(m);
    if (ins.size() < size_t(m)) throw CompileError(who + ": fewer inputs than num_scan_inputs");
    auto attr_at = [&](const char* k, size_t i) -> int64_t {
      auto it = ints.find(k);
      return it != ints.end() && i < it->second.size() ? it->second[i] : 0;
    };
    std::vector<Value*> state(ins.begin(), ins.begin() + std::ptrdiff_t(nstate));
    std::vector<Value*> scans(ins.begin() + std::ptrdiff_t(nstate), ins.end());
    if (v8)
      for (Value* v : ins)
        if (v->shape.empty() || v->shape[0] != 1)
          throw CompileError(who + ": opset 8 Scan with batch size other than 1 is not supported");
    int64_t steps = -1;
    std::vector<int64_t> axes;
    for (size_t j = 0; j < scans.size(); ++j) {
      const int64_t r = int64_t(scans[j]->shape.size());
      int64_t ax = v8 ? 1 : attr_at("scan_input_axes", j);
      if (ax < 0) ax += r;
      if (ax < 0 || ax >= r) throw CompileError(who + ": scan_input_axes out of range");
      if (steps >= 0 && scans[j]->shape[size_t(ax)] != steps)
        throw CompileError(who + ": scanned inputs have different lengths");
      steps = scans[j]->shape[size_t(ax)];
      axes.push_back(ax);
    }
    // Body-side shapes of the state come from the body's declared inputs.
    std::vector<Shape> body_in_shapes;
    for (const auto& vi : body->input()) {
      DType dt;
      Shape s;
      value_type(vi, who, &dt, &s);
      body_in_shapes.push_back(s);
    }
    if (body_in_shapes.size() != ins.size()) throw CompileError(who + ": body inputs do not match the node's");
    for (size_t i = 0; i < nstate; ++i) state[i] = reshape(state[i], body_in_shapes[i], name + ".state_in");
    const size_t nscan_out = size_t(body->output_size()) - nstate;
    std::vector<std::vector<Value*>> per_step(nscan_out);
    for (int64_t t = 0; t < steps; ++t) {
      std::vector<Value*> bound = state;
      for (size_t j = 0; j < scans.size(); ++j) {
        const Value* x = scans[j];
        const int64_t idx = attr_at("scan_input_directions", j) ? steps - 1 - t : t;
        int64_t outer = 1, inner = 1;
        for (size_t d = 0; d < x->shape.size(); ++d)
          if (int64_t(d) < axes[j]) outer *= x->shape[d];
          else if (int64_t(d) > axes[j]) inner *= x->shape[d];
        Value* slice = g_.add_value(g_.unique_name(name + ".slice"), x->dtype, body_in_shapes[nstate + j]);
        if (slice->num_elements() != outer * inner) throw CompileError(who + ": body input shape does not match a slice");
        Node* n = g_.add_node("KilnTakeSlice", g_.unique_name(name + ".take"), {scans[j]}, {slice});
        n->attrs["outer"] = outer;
        n->attrs["axis_len"] = steps;
        n->attrs["inner"] = inner;
        n->attrs["index"] = idx;
        bound.push_back(slice);
      }
      std::vector<Value*> outs = import_body(*body, bound, name + ".step" + std::to_string(t) + ".", who);
      for (size_t i = 0; i < nstate; ++i) state[i] = outs[i];
      for (size_t k = 0; k < nscan_out; ++k) per_step[k].push_back(outs[nstate + k]);
    }
    for (size_t i = 0; i < nstate; ++i) {
      Value* out = s_.make_output(np.output(int(i)));
      Value* src = reshape(state[i], out->shape, name + ".state_out");
      g_.add_node("Identity", g_.unique_name(name + ".final"), {src}, {out});
    }
    for (size_t k = 0; k < nscan_out; ++k) {
      Value* out = s_.make_output(np.output(int(nstate + k)));
      const int64_t r = int64_t(out->shape.size());
      int64_t ax = v8 ? 1 : attr_at("scan_output_axes", k);
      if (ax < 0) ax += r;
      if (ax < 0 || ax >= r || steps < 1) throw CompileError(who + ": scan output " + std::to_string(k) + " is not supported");
      Shape piece = out->shape;
      piece[size_t(ax)] = 1;
      std::vector<Value*> parts;
      for (Value* v : per_step[k]) parts.push_back(reshape(v, piece, name + ".piece"));
      if (attr_at("scan_output_directions", k)) std::reverse(parts.begin(), parts.end());
      Node* c = g_.add_node("Concat", g_.unique_name(name + ".stack"), parts, {out});
      c->attrs["axis"] = ax;
    }
  }

 private:
  const SubgraphScope& s_;
  Graph& g_;
};

}  // namespace

bool is_flattened_control_flow(const std::string& op_type) { return op_type == "If" || op_type == "Scan"; }

void flatten_control_flow(const onnx::NodeProto& np, const std::string& name, const SubgraphScope& scope) {
  Flattener f(scope);
  if (np.op_type() == "If") f.flatten_if(np, name);
  else f.flatten_scan(np, name, scope.graph->opset);
}

}  // namespace kiln
