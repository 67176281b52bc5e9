// What every TFLite operator mapping uses: the validated model, the graph being
// built, and helpers that check an operator's inputs and create IR nodes.
//
// One mapping function per TFLite operator (ops_*.cpp) turns one Operator into
// IR nodes. The checks here throw CompileError naming the operator and its index.
#pragma once

#include <array>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/kiln_ops.h"
#include "tflite/tflite_file.h"
#include "tflite/tflite_schema_generated.h"

namespace kiln::tflite {

class ImportContext {
 public:
  ImportContext(const Model& model, Graph& graph, std::string file);

  const Model& model() const { return model_; }
  Graph& graph() { return graph_; }

  // ---- checking an operator ---------------------------------------------------
  // Throws "<file>: <OP> (operator i): <what>".
  [[noreturn]] void fail(const Operator& op, const std::string& what) const;
  // Inputs in [min, max] (omitted trailing ones count) and exactly `outputs` outputs.
  void require_arity(const Operator& op, size_t min_inputs, size_t max_inputs, size_t outputs) const;
  // The tensor at input `i`; fails when it is omitted (-1) or past the end.
  const Tensor& input(const Operator& op, size_t i) const;
  // True when input `i` is present (not -1 and not past the end).
  bool has_input(const Operator& op, size_t i) const;
  const Tensor& output(const Operator& op, size_t i) const;
  // Input `i` must be a constant (in the file, or made by an earlier DEQUANTIZE
  // or DENSIFY of one); its data.
  ConstantPtr constant_input(const Operator& op, size_t i) const;
  void require_rank(const Operator& op, const Tensor& t, size_t rank) const;
  void require_dtype(const Operator& op, const Tensor& t, DType dtype) const;
  // Data movement copies bytes: input and output must have one dtype and the same
  // quantization (TFLite's kernels copy bytes too, and the converter writes equal
  // parameters), or the result would be silently reinterpreted.
  void require_same_quantization(const Operator& op, const Tensor& a, const Tensor& b) const;
  // The operator's builtin options as `T`; fails when absent or of another type
  // (`required`), or returns null when absent and not required.
  template <class T>
  const T* options(const Operator& op, bool required = true) const {
    const T* o = op.fb->builtin_options_as<T>();
    if (!o && (required || op.fb->builtin_options_type() != tflite_fb::BuiltinOptions::NONE))
      fail(op, std::string("missing or wrong builtin options (expected ") +
                   tflite_fb::EnumNameBuiltinOptions(tflite_fb::BuiltinOptionsTraits<T>::enum_value) + ")");
    return o;
  }

  // ---- quantization -------------------------------------------------------------
  // The single (per-tensor) scale and zero point of `t`; fails if it has none or many.
  float scale(const Operator& op, const Tensor& t) const;
  int64_t zero_point(const Operator& op, const Tensor& t) const;
  // act_min/act_max of a fused activation on an int8 output, as TFLite computes them.
  std::pair<int64_t, int64_t> activation_range_int8(const Operator& op, tflite_fb::ActivationFunctionType act,
                                                    const Tensor& out) const;

  // ---- building the graph -------------------------------------------------------
  // The IR value of a tensor (an input, a constant or an earlier operator's output).
  Value* value(const Operator& op, size_t input_index);
  // Creates the IR value of output `i` (fails if a tensor is produced twice).
  Value* output_value(const Operator& op, size_t i);
  // A fresh intermediate value / constant value.
  Value* temp(const Operator& op, DType dtype, Shape shape, const std::string& what);
  Value* constant(const Operator& op, ConstantPtr c, const std::string& what);
  Value* int64s(const Operator& op, const std::vector<int64_t>& v, const std::string& what);
  // Appends a node named after the operator ("CONV_2D_3", "CONV_2D_3/what").
  Node* add(const Operator& op, const std::string& op_type, std::vector<Value*> inputs,
            std::vector<Value*> outputs, const std::string& what = "");

  // ---- state kept between runs (state.cpp) -------------------------------------
  // A variable (a TFLite is_variable tensor, key "tensor:<index>", or a resource
  // variable, key "resource:<container>/<shared_name>") is a StateVariable of the
  // graph (ir/graph.h): `variable` returns its current value in the run (the value
  // it held when the run started, until an operator assigns it), creating it on
  // first use with `like`'s dtype and shape (zeros, or the zero point for int8, as
  // TFLite Micro resets variables) or checking them against it.
  Value* variable(const Operator& op, const std::string& key, const Tensor& like);
  // The variable's value from here on is `v` (written back at the end of the run;
  // reshaped to the variable's shape when only its shape differs). The first use
  // of a variable may be its assignment: it is created from `like` then.
  void assign_variable(const Operator& op, const std::string& key, Value* v, const Tensor& like);
  // The key of variable tensor input `i` (fails when it is not is_variable).
  std::string variable_input_key(const Operator& op, size_t i) const;
  // Output `i` of `op` is the existing value `v` (READ_VARIABLE).
  void alias_output(const Operator& op, size_t i, Value* v);
  // The handle VAR_HANDLE's output tensor `tensor` names (key), or "" when none does.
  std::map<int, std::string>& resource_handles() { return handles_; }
  // Appends each variable's start value to the graph inputs and, when it was
  // assigned, its end value to the graph outputs (after the model's own), and
  // records Graph::states. Called once, after the model's outputs.
  void finish_variables();

  // Graph inputs and outputs (importer).
  Value* graph_input(int tensor);
  Value* tensor_value(int tensor) const { return values_[tensor]; }

 private:
  std::string value_name(const Tensor& t);

  const Model& model_;
  Graph& graph_;
  std::string file_;
  std::vector<Value*> values_;  // per tensor; null until created
  struct Variable {
    std::string name;
    Value* start = nullptr;    // its value when a run starts (a graph input)
    Value* current = nullptr;  // its value after the operators mapped so far
    ConstantPtr initial;
  };
  std::vector<Variable> variables_;
  std::map<std::string, size_t> variable_index_;  // key -> variables_
  std::map<int, std::string> handles_;           // VAR_HANDLE output tensor -> key
};

// One mapping per operator code and flavor; ops_*.cpp register theirs. An Any
// mapping handles every dtype itself (data movement, QUANTIZE); otherwise the
// dtype of input 0 picks the Int8 or the Float mapping.
using OpMapping = std::function<void(ImportContext&, const Operator&)>;
enum class OpFlavor { Int8, Float, Any };
void register_op(tflite_fb::BuiltinOperator code, OpFlavor flavor, OpMapping fn);
// Maps `op` into the graph, or throws naming why it cannot.
void map_operator(ImportContext& ctx, const Operator& op);
// Which mappings are registered, per operator code (the operator table test and
// docs/tflite-operators.md read it).
struct RegisteredMapping {
  int32_t code = 0;
  bool int8 = false, float32 = false, any = false;
};
std::vector<RegisteredMapping> registered_mappings();

// A KilnQLookup of value `x` through `table` into `out` (a new value when null).
// When `x` is itself the output of a KilnQLookup, the two tables are composed and
// the new node reads that lookup's input: one table instead of two (the first one
// goes away with dead-node removal if nothing else uses it).
Value* add_lookup(ImportContext& c, const Operator& op, Value* x, const std::array<int8_t, 256>& table, Value* out,
                  const std::string& what);

// Registration from the ops_*.cpp files (called once by the importer).
void register_quantized_ops();
void register_float_ops();
void register_layout_ops();
void register_lstm_ops();
void register_elementwise_ops();
void register_tensor_ops();
void register_variable_ops();

// SAME/VALID padding as TFLite computes it, for one spatial axis: the padding
// before and after and the output size.
struct AxisPadding {
  int64_t before = 0, after = 0, out = 0;
};
AxisPadding tflite_padding(tflite_fb::Padding padding, int64_t in, int64_t filter, int64_t stride, int64_t dilation);

// Strides, dilations and pads [top, left, bottom, right] of a 2-D window operator
// on NHWC `x` -> `y` (kernel kh x kw), after checking that the parameters are
// positive and that `y`'s batch and spatial size are what TFLite computes.
using Window2D = ops::Window2D;
Window2D window_2d(const ImportContext& c, const Operator& op, const Tensor& x, const Tensor& y,
                   tflite_fb::Padding padding, int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t dh, int64_t dw);

}  // namespace kiln::tflite
