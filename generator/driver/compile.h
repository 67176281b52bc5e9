// The whole pipeline behind `kiln compile`: import (onnx/ or tflite/), the passes of
// driver/pipeline.h (settle -> check -> quantize -> fuse -> lower -> schedule ->
// bufferize), then memory planning under --memory-priority (driver/memory_tuning.h)
// and emission. Other commands (verify, conformance) call it too.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "emit/compiled_module.h"
#include "ir/graph.h"
#include "planner/planner.h"
#include "planner/pool_spec.h"

namespace kiln {

struct CompileOptions {
  std::string module_name = "default";
  std::filesystem::path output_dir;
  // User pools in priority order per kind (--with-workspace-buffer,
  // --with-parameter-buffer) and pin rules (--pin), parsed by cli/pool_flags.h.
  std::vector<planner::Pool> workspace_pools;
  std::vector<planner::Pool> parameter_pools;
  std::vector<planner::PinRequest> pins;
  std::string memory_planner = "auto";         // --memory-planner
  int64_t planner_budget_ms = 5000;            // --planner-budget-ms
  bool io_in_workspace = false;                // --io-in-workspace
  std::map<std::string, Shape> input_shapes;   // --input-shape NAME=D0,D1,...
  // --sequence-input: element shapes of a sequence-typed graph input (its count is
  // the number of shapes). See cli/compile_options.h.
  std::map<std::string, std::vector<Shape>> sequence_inputs;
  std::map<std::string, std::vector<double>> input_values;  // --input-value NAME=V0,V1,...
  int64_t fold_size_limit = 1 << 20;           // --fold-size-limit BYTES
  bool fold = true;                            // --no-fold turns folding off
  bool integer_quantized = true;               // --float-qdq keeps quantized ops in float (quant/qdq_rewrite.h)
  bool alias_views = true;                     // --no-alias: every view op becomes a copy
  bool in_place = true;                        // --no-in-place
  bool overlap = true;                         // --no-overlap (bufferize/overlap.h)
  std::string memory_priority = "auto";        // --memory-priority auto|speed|ram (scratch tile sizes)
  std::string schedule = "auto";               // --schedule auto|program|min-peak (schedule/graph_schedule.h)
  std::string executor = "aot";                // --executor (only aot)
  std::string target = "c";                    // --target (only c)
  std::string mcpu;                            // -mcpu (recorded; selects kernel variants later)
  std::string output_format = "dir";           // --output-format dir|mlf
  std::filesystem::path report_path;           // --report FILE.json (empty: none)
  std::filesystem::path memory_map_path;       // --memory-map FILE.svg
  bool quiet = false;                          // no summary on stdout
  // --verify-graph: check the graph's invariants (ir/verify_graph.h) after every
  // pass; also on in debug builds and with KILN_VERIFY_GRAPH=1 in the environment.
  bool verify_graph = false;
};

// Runs the pipeline and writes the module into options.output_dir. Throws
// CompileError (one line, naming the node or flag) on bad input.
CompiledModule compile_model(const std::filesystem::path& model_path, const CompileOptions& options);

// The same pipeline over a model held in memory (ONNX or, by its identifier,
// TFLite), writing nothing (report, memory map and output folder are ignored); the
// module's files come back as text in CompiledModule::files: the fuzz targets
// (tests/fuzz/).
CompiledModule compile_model_in_memory(std::vector<uint8_t> model_bytes, const CompileOptions& options);

}  // namespace kiln
