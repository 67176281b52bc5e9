// The Flattener's dispatch per op type and the small node builders every lowering
// uses (flattener.h).
#include "controlflow/flattener.h"

#include <algorithm>

#include "controlflow/compile_time.h"

namespace kiln::controlflow {

void Flattener::flatten(const NodeView& nv, bool undecided_too) {
  const std::string& op = nv.node->op_type;
  if (op == "If") flatten_if(nv, undecided_too);
  else if (op == "Scan") flatten_scan(nv);
  else if (!undecided_too && nv.can_keep() && !loop_decidable(nv)) keep_loop(nv);
  else flatten_loop(nv);
}

// A Loop in a body whose trip count or condition folding may still settle: it
// stays a Loop node of the enclosing graph (its outputs typed as far as known).
void Flattener::keep_loop(const NodeView& nv) {
  std::vector<Value*> outs;
  for (size_t i = 0; i < nv.node->outputs.size(); ++i)
    outs.push_back(nv.omitted(i) ? g_.add_value(g_.unique_name(nv.name + "_unused"), DType::Undefined, {})
                                 : nv.make_open_output(i));
  nv.keep_node(outs);
}

Value* Flattener::constant_shape(const Shape& s) {
  Value* v = g_.add_value(g_.unique_name("shape"), DType::Int64, {int64_t(s.size())});
  v->constant = Constant::from_int64s({int64_t(s.size())}, s);
  return v;
}

Value* Flattener::reshape(Value* in, const Shape& s, const std::string& name) {
  if (in->shape == s) return in;
  Value* out = g_.add_value(g_.unique_name(name), in->dtype, s);
  g_.add_node("Reshape", g_.unique_name(name), {in, constant_shape(s)}, {out});
  return out;
}

Value* Flattener::bool_const(bool b, const Shape& shape) {
  Value* v = g_.add_value(g_.unique_name(b ? "true" : "false"), DType::Bool, shape);
  v->constant = Constant::from_bytes(DType::Bool, shape, std::vector<uint8_t>(size_t(shape_elements(shape)), b ? 1 : 0));
  return v;
}

void Flattener::note(const std::string& text) {
  if (std::find(g_.lowering_notes.begin(), g_.lowering_notes.end(), text) == g_.lowering_notes.end())
    g_.lowering_notes.push_back(text);
}

}  // namespace kiln::controlflow
