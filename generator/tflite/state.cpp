// State kept between runs: TFLite's variable tensors (an LSTM's hidden and cell
// state) and resource variables (VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE), both
// imported as the graph's StateVariables (ir/graph.h).
//
// Inside one run a variable is an ordinary value that operators assign in schedule
// order: a reader sees the value the run started with until an operator assigns
// it, then the assigned one. What the variable holds at the end of the run is
// written back (bufferize/state.cpp) and is what the next run starts from.
// TFLite Micro resets variables to zero (int8: to their zero point, a memset of
// that byte) whatever a variable tensor's buffer holds; Kiln's reset does the same.
// CALL_ONCE (a subgraph run once to give resource variables their first value) is
// refused: Kiln imports the main subgraph only.
#include "tflite/import_context.h"
#include "util/quoted.h"

namespace kiln::tflite {

namespace fb = kiln::tflite_fb;

namespace {

// TFLite Micro's reset value: every byte the zero point for int8, else zeros.
ConstantPtr reset_value(DType dtype, const Shape& shape, const Quantization& quant) {
  const uint8_t byte = dtype == DType::Int8 && !quant.zero_point.empty() ? uint8_t(int8_t(quant.zero_point[0])) : 0;
  return Constant::from_bytes(dtype, shape, std::vector<uint8_t>(size_t(shape_elements(shape)) * dtype_size(dtype), byte));
}

}  // namespace

std::string ImportContext::variable_input_key(const Operator& op, size_t i) const {
  const Tensor& t = input(op, i);
  if (!t.is_variable) fail(op, "input " + std::to_string(i) + " (" + t.quoted() + ") must be a variable tensor");
  return "tensor:" + std::to_string(t.index);
}

Value* ImportContext::variable(const Operator& op, const std::string& key, const Tensor& like) {
  auto it = variable_index_.find(key);
  if (it != variable_index_.end()) {
    const Variable& var = variables_[it->second];
    if (var.start->dtype != like.dtype || var.start->shape != like.shape)
      fail(op, like.label() + " (" + dtype_name(like.dtype) + " " + shape_str(like.shape) + ") does not match variable " +
                   in_quotes(var.name) + " (" + dtype_name(var.start->dtype) + " " + shape_str(var.start->shape) + ")");
    return var.current;
  }
  if (dtype_size(like.dtype) == 0 || like.dtype == DType::String)
    fail(op, "variable " + like.label() + " has dtype " + dtype_name(like.dtype) + ", which a state buffer cannot hold");
  Variable var;
  var.name = key.rfind("resource:", 0) == 0 ? key.substr(9) : (like.name.empty() ? key : like.name);
  var.start = graph_.add_value(graph_.find_value(var.name) ? graph_.unique_name(var.name) : var.name, like.dtype,
                               like.shape);
  var.start->is_graph_input = true;
  var.current = var.start;
  var.initial = reset_value(like.dtype, like.shape, like.quant);
  variable_index_[key] = variables_.size();
  variables_.push_back(var);
  return var.current;
}

void ImportContext::assign_variable(const Operator& op, const std::string& key, Value* v, const Tensor& like) {
  // The first use of a variable may be its assignment: it takes the value's type.
  if (!variable_index_.count(key)) variable(op, key, like);
  Variable& var = variables_[variable_index_.at(key)];
  if (v->dtype != var.start->dtype || shape_elements(v->shape) != shape_elements(var.start->shape))
    fail(op, "assigns " + dtype_name(v->dtype) + " " + shape_str(v->shape) + " to variable " + in_quotes(var.name) +
                 " (" + dtype_name(var.start->dtype) + " " + shape_str(var.start->shape) + ")");
  if (v->shape != var.start->shape) {  // same elements, another shape: a view
    Value* reshaped = temp(op, v->dtype, var.start->shape, "assigned");
    add(op, "Reshape", {v, int64s(op, var.start->shape, "assigned_shape")}, {reshaped}, "assigned");
    v = reshaped;
  }
  var.current = v;
}

void ImportContext::alias_output(const Operator& op, size_t i, Value* v) {
  const Tensor& t = output(op, i);
  if (values_[t.index]) fail(op, "output " + t.quoted() + " is already produced by an earlier operator");
  if (t.dtype != v->dtype || t.shape != v->shape)
    fail(op, "output " + t.quoted() + " (" + dtype_name(t.dtype) + " " + shape_str(t.shape) + ") does not match " +
                 in_quotes(v->name) + " (" + dtype_name(v->dtype) + " " + shape_str(v->shape) + ")");
  values_[t.index] = v;
}

void ImportContext::finish_variables() {
  for (const Variable& var : variables_) {
    StateVariable s;
    s.name = var.name;
    s.initial = var.initial;
    s.input = graph_.inputs.size();
    graph_.inputs.push_back(var.start);
    if (var.current != var.start) {
      s.output = graph_.outputs.size();
      graph_.outputs.push_back(var.current);
      var.current->is_graph_output = true;
    }
    graph_.states.push_back(s);
  }
}

namespace {

// VAR_HANDLE: names a resource variable; its output is only ever an input of
// READ_VARIABLE / ASSIGN_VARIABLE, which look the name up.
void var_handle(ImportContext& c, const Operator& op) {
  c.require_arity(op, 0, 0, 1);
  const Tensor& h = c.output(op, 0);
  if (!h.is_resource) c.fail(op, "output " + h.quoted() + " must be a RESOURCE tensor");
  const auto* o = c.options<fb::VarHandleOptions>(op, false);
  const std::string container = o && o->container() ? o->container()->str() : "";
  const std::string shared = o && o->shared_name() ? o->shared_name()->str() : "";
  if (shared.empty()) c.fail(op, "a resource variable needs a shared_name");
  c.resource_handles()[h.index] = "resource:" + (container.empty() ? shared : container + "/" + shared);
}

// The variable key of a resource handle input.
std::string handle_key(ImportContext& c, const Operator& op, size_t i) {
  const Tensor& h = c.input(op, i);
  auto it = c.resource_handles().find(h.index);
  if (it == c.resource_handles().end())
    c.fail(op, "input " + std::to_string(i) + " (" + h.quoted() + ") is not the handle of an earlier VAR_HANDLE");
  return it->second;
}

void read_variable(ImportContext& c, const Operator& op) {
  c.require_arity(op, 1, 1, 1);
  c.alias_output(op, 0, c.variable(op, handle_key(c, op, 0), c.output(op, 0)));
}

void assign_variable(ImportContext& c, const Operator& op) {
  c.require_arity(op, 2, 2, 0);
  c.assign_variable(op, handle_key(c, op, 0), c.value(op, 1), c.input(op, 1));
}

}  // namespace

void register_variable_ops() {
  register_op(fb::BuiltinOperator::VAR_HANDLE, OpFlavor::Any, var_handle);
  register_op(fb::BuiltinOperator::READ_VARIABLE, OpFlavor::Any, read_variable);
  register_op(fb::BuiltinOperator::ASSIGN_VARIABLE, OpFlavor::Any, assign_variable);
}

}  // namespace kiln::tflite
