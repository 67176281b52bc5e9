#include "tflite/tflite_importer.h"

#include <mutex>

#include "ir/opset.h"
#include "tflite/import_context.h"
#include "tflite/tflite_schema_generated.h"
#include "util/error.h"
#include "util/quoted.h"

namespace kiln {

namespace {

void register_all_ops() {
  static std::once_flag once;
  std::call_once(once, [] {
    tflite::register_quantized_ops();
    tflite::register_float_ops();
    tflite::register_layout_ops();
    tflite::register_lstm_ops();
    tflite::register_elementwise_ops();
    tflite::register_tensor_ops();
    tflite::register_variable_ops();
  });
}

}  // namespace

std::vector<TfliteOperatorMapping> tflite_operator_mappings() {
  register_all_ops();
  std::vector<TfliteOperatorMapping> out;
  for (const auto& m : tflite::registered_mappings()) out.push_back({m.code, m.int8, m.float32, m.any});
  return out;
}

std::unique_ptr<Graph> import_tflite_model(const tflite::Model& model, const std::string& file) {
  register_all_ops();
  auto graph = std::make_unique<Graph>();
  graph->name = std::filesystem::path(file).stem().string();
  // The ONNX-style ops the importer emits follow the newest opset Kiln knows
  // (Squeeze/Unsqueeze/Split/Pad/Slice take their parameters as inputs).
  graph->opset = kIrOpset;
  tflite::ImportContext ctx(model, *graph, file);

  for (int t : model.inputs) {
    Value* v = ctx.graph_input(t);
    v->is_graph_input = true;
    graph->inputs.push_back(v);
  }
  for (const auto& op : model.operators) {
    // Variables (state kept between runs, tflite/state.cpp) are read by any
    // operator and assigned by the ones that update them (the LSTM, ASSIGN_VARIABLE).
    if (op.code == int32_t(tflite_fb::BuiltinOperator::CALL_ONCE))
      throw CompileError(file + ": " + op.describe() +
                         ": CALL_ONCE runs another subgraph once (to give resource variables their first value); "
                         "Kiln imports only the main subgraph, so a model that initializes its variables this "
                         "way is not supported (variables without CALL_ONCE start from zero)");
    tflite::map_operator(ctx, op);
  }
  for (int t : model.outputs) {
    Value* v = ctx.tensor_value(t);
    if (!v) {
      const auto& tensor = model.tensors[t];
      if (!tensor.data)
        throw CompileError(file + ": model output " + tensor.quoted() + " is not produced by any operator");
      v = graph->add_value(tensor.name.empty() ? "output_" + std::to_string(t) : tensor.name, tensor.dtype,
                           tensor.shape);
      v->constant = tensor.data;
    }
    if (v->is_graph_output) throw CompileError(file + ": tensor " + in_quotes(v->name) + " is listed twice as a model output");
    v->is_graph_output = true;
    graph->outputs.push_back(v);
  }
  ctx.finish_variables();
  graph->remove_dead_nodes();
  graph->remove_dead_values();
  return graph;
}

std::unique_ptr<Graph> import_tflite(const std::filesystem::path& model_path) {
  tflite::Model model = tflite::load_tflite(model_path);
  return import_tflite_model(model, model_path.filename().string());
}

}  // namespace kiln
