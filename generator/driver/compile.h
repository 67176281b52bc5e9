// The whole pipeline behind `kiln compile`: import -> fold & simplify -> lower ->
// bufferize -> plan -> emit. Other commands (verify, conformance) call it too.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "emit/compiled_module.h"
#include "fold/fold.h"
#include "ir/graph.h"
#include "quant/qdq_rewrite.h"

namespace kiln {

struct CompileOptions {
  std::string module_name = "default";
  std::filesystem::path output_dir;
  // Raw flag values; parsed (and validated, naming the flag) by the driver.
  std::vector<std::string> workspace_buffers;  // --with-workspace-buffer "name=..;size=..;align=..;section=.."
  std::vector<std::string> parameter_buffers;  // --with-parameter-buffer "..."
  std::vector<std::string> pins;               // --pin "PATTERN=POOL[,POOL...]"
  std::string memory_planner = "auto";         // --memory-planner
  int64_t planner_budget_ms = 5000;            // --planner-budget-ms
  bool io_in_workspace = false;                // --io-in-workspace
  std::map<std::string, Shape> input_shapes;   // --input-shape NAME=D0,D1,...
  // --sequence-input: element shapes of a sequence-typed graph input (its count is
  // the number of shapes). See sequence/sequence_io.h.
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
};

// The QDQ rewrite's view of this build's lowerings: which integer ops have a
// kernel, and whether a lowering takes an op's parameters.
quant::QdqOptions qdq_options_from_lowerings();

// The imported graph brought to rest, as every command sees it before lowering:
// constant folding (when `fold`), sequence resolution, shape inference and the
// decision of deferred Ifs (import/control_flow.h) alternate until nothing
// changes; an If still undecided then runs both branches, and a sequence position
// still computed at run time becomes a run-time table. Returns the folding report
// of all rounds.
FoldReport settle_graph(Graph& graph, bool fold, const FoldOptions& fold_options);

// Runs the pipeline and writes the module into options.output_dir. Throws
// CompileError (one line, naming the node or flag) on bad input.
CompiledModule compile_model(const std::filesystem::path& model_path, const CompileOptions& options);

// The same pipeline over a model held in memory (ONNX or, by its identifier,
// TFLite), writing nothing (report, memory map and output folder are ignored): the
// fuzz targets (tests/fuzz/).
CompiledModule compile_model_in_memory(std::vector<uint8_t> model_bytes, const CompileOptions& options);

}  // namespace kiln
