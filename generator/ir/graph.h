// Kiln's graph IR: values with a dtype and a static shape, nodes with attributes.
//
// The graph owns every value and node. Nodes are kept in a topological schedule
// (the order of `nodes`), which is also the execution order the later stages plan
// for. Passes rewrite the graph in place through the small API below, which keeps
// producer/user links consistent. See docs/architecture.md.
#pragma once

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "ir/constant.h"
#include "ir/dtype.h"

namespace kiln {

using Shape = std::vector<int64_t>;

int64_t shape_elements(const Shape& s);  // product of dims; 1 for a scalar
std::string shape_str(const Shape& s);   // "[1,3,32,32]"

class Node;
class Graph;

// A subgraph held by its node as an attribute: an If branch, a Loop / Scan /
// SequenceMap body. It is an ordinary Graph: `inputs` are its formal parameters,
// `outputs` its results, and `captures` the values of enclosing scopes it reads.
using GraphPtr = std::shared_ptr<Graph>;

struct Value {
  std::string name;
  DType dtype = DType::Undefined;
  Shape shape;
  // False while the shape is not known yet: an intermediate value whose shape
  // depends on a constant that folding has still to compute (see
  // onnx/node_shape_inference.h). `shape` is meaningless then. After folding
  // every used value has a known shape, or the compile fails naming its node.
  bool shape_known = true;
  Node* producer = nullptr;    // null for graph inputs and constants
  std::vector<Node*> users;    // one entry per use (a node using it twice appears twice)
  ConstantPtr constant;        // set when the value is known at compile time
  bool is_graph_input = false;
  bool is_graph_output = false;
  // An ONNX sequence (seq(tensor(dtype))): `dtype` is the element dtype and
  // `shape_known` stays false. Sequence values exist only between import and
  // sequence/resolve_sequences.h, which replaces them by their element tensors.
  bool is_sequence = false;

  bool is_constant() const { return constant != nullptr; }
  int64_t num_elements() const { return shape_elements(shape); }
  uint64_t size_bytes() const { return uint64_t(num_elements()) * dtype_size(dtype); }
};

using AttrValue = std::variant<int64_t, double, std::string, std::vector<int64_t>,
                               std::vector<double>, std::vector<std::string>, ConstantPtr, GraphPtr>;

class Node {
 public:
  std::string name;     // unique; the importer names unnamed nodes "<op_type>_<index>"
  std::string op_type;  // "Conv"
  std::string domain;   // "" for the default ONNX domain
  int64_t opset = 0;    // opset version of the node's domain in the model
  std::vector<Value*> inputs;   // nullptr marks an omitted optional input
  std::vector<Value*> outputs;
  std::map<std::string, AttrValue> attrs;

  bool has_attr(const std::string& k) const { return attrs.count(k) != 0; }
  int64_t attr_int(const std::string& k, int64_t dflt) const;
  double attr_float(const std::string& k, double dflt) const;
  std::string attr_string(const std::string& k, const std::string& dflt) const;
  std::vector<int64_t> attr_ints(const std::string& k, std::vector<int64_t> dflt = {}) const;
  std::vector<double> attr_floats(const std::string& k, std::vector<double> dflt = {}) const;
  ConstantPtr attr_tensor(const std::string& k) const;  // null if absent
  Graph* attr_graph(const std::string& k) const;        // a subgraph; null if absent
  // A node holding subgraphs that read values of this scope takes them as its last
  // inputs, in the order of its attribute "captured" (their names in the subgraphs);
  // how many leading inputs are the operator's own.
  size_t own_input_count() const;

  // The input at `i`, or nullptr when absent (past the end or omitted).
  Value* input(size_t i) const { return i < inputs.size() ? inputs[i] : nullptr; }
  // "Conv 'conv1'": how errors name a node.
  std::string describe() const;
};

// An ONNX graph input/output of sequence type. Kiln exposes it as `count` plain
// tensor inputs/outputs named <name>_0 .. <name>_{count-1}, at `first` in
// Graph::inputs/outputs; `position` is its index among the ONNX graph's own
// inputs (initializers excluded) / outputs. See docs/user-guide.md.
struct SequenceInterface {
  std::string name;
  bool is_input = true;
  size_t position = 0;
  size_t first = 0;
  size_t count = 0;
};

// A graph input the user fixed at compile time (--input-value): a constant now,
// absent from the generated API. `position` is its index among the ONNX graph's own
// inputs (initializers excluded), i.e. the test data's input_<position>.pb.
struct BoundInput {
  std::string name;
  size_t position = 0;
  ConstantPtr value;
};

// State kept between runs of the compiled module (TFLite variable tensors and
// resource variables; docs/user-guide.md, "State across calls"). For every pass it
// is one more graph input (its value when the run starts) and, when something
// assigns it, one more graph output (its value when the run ends); both come after
// the model's own inputs and outputs, and the entry here names them by position
// (passes may replace the values but never reorder the lists). Bufferization gives
// both one persistent buffer (BufferKind::State) that the generated
// kiln_<module>_reset() fills with `initial`; the run never clears it.
struct StateVariable {
  std::string name;
  size_t input = 0;             // index in Graph::inputs of its value at the start of a run
  std::optional<size_t> output;  // index in Graph::outputs of its value at the end; none: never assigned
  ConstantPtr initial;          // its value after kiln_<module>_reset()
};

class Graph {
 public:
  std::string name;
  int64_t opset = 0;  // default-domain opset the model was imported at
  std::vector<Value*> inputs;   // runtime graph inputs (initializers excluded)
  std::vector<Value*> outputs;
  std::list<std::unique_ptr<Node>> nodes;  // topological schedule
  std::vector<SequenceInterface> sequence_io;  // sequence-typed graph inputs/outputs, in order
  std::vector<BoundInput> bound_inputs;        // inputs given a value at compile time, in order
  std::vector<StateVariable> states;           // state kept between runs, in order
  // A subgraph's stand-ins for the values of enclosing scopes it reads: no producer,
  // named as the outer value (see Node::own_input_count). Empty for a model's graph.
  std::vector<Value*> captures;
  // What control-flow lowering decided for each Loop (a C loop, or unrolled and
  // why): the compile summary prints them.
  std::vector<std::string> lowering_notes;

  Value* add_value(std::string name, DType dtype, Shape shape);
  Value* find_value(const std::string& name) const;
  // Appends a node at the end of the schedule and links its inputs' users.
  Node* add_node(std::string op_type, std::string name, std::vector<Value*> inputs,
                 std::vector<Value*> outputs);
  // Replaces every use of `from` by `to` (also as a graph output).
  void replace_all_uses(Value* from, Value* to);
  // Removes a node whose outputs have no users and are not graph outputs.
  void erase_node(Node* n);
  // Drops values that are neither used, produced, nor graph inputs/outputs.
  void remove_dead_values();
  // Removes nodes whose outputs are all unused (repeatedly). Returns how many.
  size_t remove_dead_nodes();
  const std::vector<std::unique_ptr<Value>>& values() const { return values_; }
  // The state whose start-of-run value is graph input `k` / whose end-of-run value
  // is graph output `k`, or null: a plain input/output of the caller.
  const StateVariable* state_of_input(size_t k) const;
  const StateVariable* state_of_output(size_t k) const;
  // A fresh value name with the given prefix.
  std::string unique_name(const std::string& prefix);

 private:
  std::vector<std::unique_ptr<Value>> values_;
  std::map<std::string, Value*> by_name_;
  uint64_t name_counter_ = 0;
};

}  // namespace kiln
