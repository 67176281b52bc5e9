#include "cli/inspect_command.h"

#include <iostream>
#include <map>
#include <memory>

#include "cli/compile_options.h"
#include "driver/pipeline.h"
#include "onnx/onnx_importer.h"
#include "tflite/tflite_importer.h"
#include "util/error.h"

namespace kiln {

namespace {

std::string op_histogram(const Graph& g) {
  std::map<std::string, int> ops;
  for (const auto& n : g.nodes) ops[n->op_type]++;
  std::string s;
  for (const auto& [op, c] : ops) s += " " + op + " x" + std::to_string(c);
  return s.empty() ? " (none)" : s;
}

void print_values(const char* what, const std::vector<Value*>& vs) {
  for (const Value* v : vs)
    std::cout << "  " << what << " " << v->name << ": " << dtype_name(v->dtype)
              << (v->shape_known ? shape_str(v->shape) : std::string("[?]")) << "\n";
}

}  // namespace

void add_inspect_command(CLI::App& app) {
  struct Args {
    std::string model;
    std::vector<std::string> input_shapes;
    std::vector<std::string> input_values;
    int64_t fold_size_limit = 1 << 20;
    bool gc = true;
    bool fold = true;
  };
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("inspect", "show a model's inputs, outputs, operators and what folding does to it");
  cmd->add_option("MODEL", args->model, "the .onnx or .tflite file")->required();
  cmd->add_option("--input-shape", args->input_shapes, "NAME=D0,D1,... static shape of a dynamic input (repeatable)");
  cmd->add_option("--input-value", args->input_values,
                  "NAME=V0,V1,... fix a graph input's value at compile time (repeatable)");
  cmd->add_option("--fold-size-limit", args->fold_size_limit,
                  "largest constant (bytes) a fold may create when it is bigger than its inputs");
  cmd->add_flag("!--no-gc", args->gc, "keep dead constants alive while folding (to see what GC saves)");
  cmd->add_flag("!--no-fold", args->fold, "only show the imported model");
  cmd->callback([args]() {
    ImportOptions io;
    for (const auto& s : args->input_shapes) io.input_shapes.insert(parse_input_shape(s));
    for (const auto& s : args->input_values) io.input_values.insert(parse_input_value(s));
    const bool tflite = tflite::is_tflite_file(args->model);
    if (tflite && (!io.input_shapes.empty() || !io.input_values.empty()))
      throw CompileError("--input-shape and --input-value apply to ONNX models; a TFLite model's shapes are static");
    auto graph = tflite ? import_tflite(args->model) : import_onnx(args->model, io);
    if (tflite) std::cout << "model: " << args->model << " (TFLite)\n";
    else std::cout << "model: " << args->model << " (opset " << graph->opset << ")\n";
    print_values("input ", graph->inputs);
    print_values("output", graph->outputs);
    std::cout << "operators (" << graph->nodes.size() << "):" << op_histogram(*graph) << "\n";
    if (!args->fold) return;
    // The passes of `kiln compile` (driver/pipeline.h) up to the integer rewrite,
    // showing what each did.
    PipelineOptions po;
    po.fold_options.size_limit_bytes = args->fold_size_limit;
    po.fold_options.gc = args->gc;
    PipelineState state;
    state.graph = graph.get();
    run_pipeline(state, po, PassId::Quantize, [](const Pass& pass, const PipelineState& s) {
      if (pass.id == PassId::Settle) {
        std::cout << fold_report_details(s.fold_report);
        std::cout << "operators after folding (" << s.graph->nodes.size() << "):" << op_histogram(*s.graph) << "\n";
      }
      // Quantized models: what `kiln compile` makes of their QDQ groups (quant/qdq_rewrite.h).
      if (pass.id == PassId::Quantize && s.quant_report.quantized_model) {
        std::cout << quant::qdq_report_summary(s.quant_report);
        std::cout << "operators after the integer rewrite (" << s.graph->nodes.size() << "):"
                  << op_histogram(*s.graph) << "\n";
      }
    });
  });
}

}  // namespace kiln
