#include "driver/compile.h"

#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "driver/flash_budget.h"
#include "driver/memory_plan.h"
#include "driver/memory_tuning.h"
#include "driver/pipeline.h"
#include "emit/c_names.h"
#include "emit/emitter.h"
#include "emit/model_library_format.h"
#include "lower/lowering.h"
#include "onnx/onnx_importer.h"
#include "planner/plan_report.h"
#include "planner/pool_spec.h"
#include "schedule/graph_schedule.h"
#include "tflite/tflite_importer.h"
#include "util/error.h"
#include "util/fault_guard.h"
#include "util/progress.h"
#include "util/quoted.h"

namespace kiln {

namespace fs = std::filesystem;

namespace {

void check_options(const CompileOptions& o) {
  if (!is_c_identifier(o.module_name))
    throw CompileError("--module-name " + in_quotes(o.module_name) +
                       " is not a C identifier (letters, digits and '_', not starting with a digit)");
  if (o.executor != "aot") throw CompileError("--executor " + in_quotes(o.executor) + " is not supported (only 'aot')");
  if (o.target != "c") throw CompileError("--target " + in_quotes(o.target) + " is not supported (only 'c')");
  if (o.output_format != "dir" && o.output_format != "mlf")
    throw CompileError("--output-format " + in_quotes(o.output_format) + " is not supported (dir or mlf)");
  if (o.output_dir.empty()) throw CompileError("no output folder given (-o DIR)");
}

// User pools, then an internal pool of each kind the user did not name.
std::vector<planner::Pool> make_pools(const CompileOptions& o) {
  std::vector<planner::Pool> pools;
  for (const auto& p : o.workspace_pools) pools.push_back(p);
  for (const auto& p : o.parameter_pools) pools.push_back(p);
  planner::check_pool_names(pools);
  auto has = [&](planner::PoolKind k) {
    for (const auto& p : pools)
      if (p.kind == k) return true;
    return false;
  };
  for (auto kind : {planner::PoolKind::Workspace, planner::PoolKind::Parameter}) {
    if (has(kind)) continue;
    planner::Pool p;
    p.name = "internal";
    p.kind = kind;
    p.is_user = false;
    pools.push_back(p);
  }
  return pools;
}

void write_text(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  if (!out) throw CompileError("cannot write " + in_quotes(p.string()));
  out << text;
}

// A failed compile must leave nothing behind: the module is written into a
// staging folder beside the target (same file system, so the final step is a
// rename) and moved into place only once every file is written.
class StagingFolder {
 public:
  explicit StagingFolder(const fs::path& target) : target_(fs::absolute(target).lexically_normal()) {
    if (target_.filename().empty()) target_ = target_.parent_path();
    // The nearest folder that exists already: nothing is created above it until the end.
    fs::path base = target_.parent_path();
    while (!base.empty() && !fs::exists(base) && base != base.root_path()) base = base.parent_path();
    std::error_code ec;
    if (fs::exists(target_, ec) && !fs::is_directory(target_, ec))
      throw CompileError("output " + in_quotes(target.string()) + " exists and is not a folder");
    for (int i = 0;; ++i) {
      dir_ = base / ("." + target_.filename().string() + ".kiln-staging-" + std::to_string(::getpid()) + "-" +
                     std::to_string(i));
      if (fs::create_directory(dir_, ec)) break;
      if (ec || i > 100) throw CompileError("cannot create a staging folder beside " + in_quotes(target.string()));
    }
    fault_cleanup_folder(dir_.string());  // removed by the fault guard if the compiler dies
  }
  ~StagingFolder() {
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
    fault_cleanup_folder("");
  }
  const fs::path& dir() const { return dir_; }

  // Moves the staged files into the target folder: a new folder is renamed into
  // place; into an existing one each staged entry replaces the entry of that name
  // (other files the user keeps there stay).
  void publish() {
    std::error_code ec;
    fs::create_directories(target_.parent_path(), ec);
    if (!fs::exists(target_)) {
      fs::rename(dir_, target_, ec);
      if (ec) throw CompileError("cannot move the module into " + in_quotes(target_.string()) + ": " + ec.message());
      dir_.clear();
      return;
    }
    for (const auto& e : fs::directory_iterator(dir_)) {
      const fs::path dst = target_ / e.path().filename();
      fs::remove_all(dst, ec);
      fs::rename(e.path(), dst, ec);
      if (ec) throw CompileError("cannot move " + in_quotes(e.path().filename().string()) + " into " + in_quotes(target_.string()) + ": " + ec.message());
    }
  }

 private:
  fs::path target_, dir_;
};

PipelineOptions pipeline_options(const CompileOptions& o, const LoweringTarget& target) {
  PipelineOptions po;
  po.fold = o.fold;
  po.fold_options.size_limit_bytes = o.fold_size_limit;
  po.integer_quantized = o.integer_quantized;
  po.bufferize.alias_views = o.alias_views;
  po.bufferize.in_place = o.in_place;
  po.bufferize.overlap = o.overlap;
  po.schedule = o.schedule;
  po.verify_graph = po.verify_graph || o.verify_graph;
  po.target = target;
  return po;
}

MemoryPlanOptions memory_plan_options(const CompileOptions& o) {
  MemoryPlanOptions mo;
  mo.pools = make_pools(o);
  mo.pins = o.pins;
  mo.io_in_workspace = o.io_in_workspace;
  mo.planner.algorithm = o.memory_planner;
  mo.planner.budget_ms = o.planner_budget_ms;
  return mo;
}

// What compile_graph made, for the report and the summary.
struct CompileResults {
  const Graph& graph;
  const PipelineState& state;
  const FlashBudget& flash;
  const TunedMemory& memory;
};

void write_report(const CompileResults& r, const std::string& model_name, const CompileOptions& o) {
  const MemoryPlan& mp = r.memory.plan;
  const BufferizedProgram& program = r.state.program;
  nlohmann::json j;
  j["module"] = o.module_name;
  j["model"] = model_name;
  j["mcpu"] = o.mcpu;
  j["plan"] = planner::plan_to_json(mp.problem, mp.plan, mp.origins);
  j["folding"] = fold_report_to_json(r.state.fold_report);
  j["control_flow"] = r.graph.lowering_notes;
  j["copies"] = program.copies;
  j["overlaps"] = program.overlaps;
  if (r.state.quant_report.quantized_model) j["quantization"] = quant::qdq_report_to_json(r.state.quant_report);
  nlohmann::json ops = nlohmann::json::array();
  for (size_t i = 0; i < program.ops.size(); ++i) ops.push_back({{"step", i}, {"op", program.ops[i].label}});
  j["schedule"] = ops;
  j["schedule_search"] = schedule_report_json(r.state.schedule);
  j["memory_priority"] = r.memory.note;
  if (r.flash.capacity) j["weight_forms"] = flash_budget_json(r.flash);
  write_text(o.report_path, j.dump(2) + "\n");
}

void print_summary(const CompileResults& r, const std::string& model_name, const CompileOptions& o) {
  const BufferizedProgram& program = r.state.program;
  std::cout << "kiln: compiled '" << model_name << "' -> " << o.output_dir.string() << " (" << program.ops.size()
            << " operator calls, " << program.copies.size() << " copies)\n";
  for (const std::string& note : r.graph.lowering_notes) std::cout << "control flow: " << note << "\n";
  if (o.fold) std::cout << fold_report_summary(r.state.fold_report);
  std::cout << quant::qdq_report_summary(r.state.quant_report);
  std::cout << planner::plan_summary_text(r.memory.plan.problem, r.memory.plan.plan);
  std::cout << flash_budget_summary(r.flash);
  std::cout << schedule_report_text(r.state.schedule);
  std::cout << "memory priority: " << r.memory.note << "; " << program.overlaps.size()
            << " outputs placed across their input\n";
}

// Emits the module; when `write`, into a staging folder moved into place once
// every file is written.
CompiledModule emit(const CompileResults& r, const std::string& model_name, const CompileOptions& o, bool write) {
  progress_stage("writing C");
  EmitOptions eo;
  eo.module_name = o.module_name;
  eo.output_dir = o.output_dir;
  eo.model_file = model_name;
  eo.io_in_workspace = o.io_in_workspace;
  eo.write_files = write;
  std::optional<StagingFolder> staging;
  if (write) {
    staging.emplace(o.output_dir);
    eo.write_dir = staging->dir();
  }
  CompiledModule module = emit_module(r.graph, r.state.program, r.memory.plan.emit, eo);
  if (write) staging->publish();
  return module;
}

// Everything after import: the passes (driver/pipeline.h), the weight forms that
// fit a sized parameter pool (driver/flash_budget.h), memory planning under
// --memory-priority (driver/memory_tuning.h), emission. Writes the module, the
// report and the memory map only when `write`.
CompiledModule compile_graph(std::unique_ptr<Graph> graph, const std::string& model_name, const CompileOptions& o,
                             bool write) {
  const MemoryPriority priority = parse_memory_priority(o.memory_priority);
  PipelineOptions po = pipeline_options(o, initial_lowering_target(o.mcpu, priority));
  const MemoryPlanOptions mo = memory_plan_options(o);
  PipelineState state;
  state.graph = graph.get();
  run_pipeline(state, po);
  const FlashBudget flash = fit_parameter_budget(state, &po, mo.pools);
  const TunedMemory memory = plan_memory_tuned(state, po, priority, mo);
  const CompileResults results{*graph, state, flash, memory};
  CompiledModule module = emit(results, model_name, o, write);
  if (!write) return module;
  if (!o.report_path.empty()) write_report(results, model_name, o);
  if (!o.memory_map_path.empty())
    write_text(o.memory_map_path, planner::plan_to_svg(memory.plan.problem, memory.plan.plan, memory.plan.origins,
                                                       schedule_report_text(state.schedule)));
  if (o.output_format == "mlf") write_model_library_format(module, o.output_dir.string() + ".tar");
  progress_stage("");
  if (!o.quiet) print_summary(results, model_name, o);
  return module;
}

ImportOptions import_options_for(const CompileOptions& o) {
  ImportOptions io;
  io.input_shapes = o.input_shapes;
  io.sequence_inputs = o.sequence_inputs;
  io.input_values = o.input_values;
  return io;
}

}  // namespace

CompiledModule compile_model(const fs::path& model_path, const CompileOptions& o) {
  check_options(o);
  // Only a regular file is read: a FIFO or a device given as the model would block
  // or never end.
  std::error_code ec;
  const auto st = fs::status(model_path, ec);
  if (ec || !fs::exists(st)) throw CompileError("cannot read model file " + in_quotes(model_path.string()) + ": it does not exist");
  if (!fs::is_regular_file(st)) throw CompileError("model " + in_quotes(model_path.string()) + " is not a regular file");
  ImportOptions io = import_options_for(o);
  io.warn = [](const std::string& w) { std::cerr << "kiln: warning: " << w << "\n"; };
  // A .tflite file is recognized by its content (the "TFL3" identifier), whatever its name.
  const bool tflite = tflite::is_tflite_file(model_path);
  if (tflite && (!o.input_shapes.empty() || !o.sequence_inputs.empty() || !o.input_values.empty()))
    throw CompileError("--input-shape, --sequence-input and --input-value apply to ONNX models; a TFLite model's "
                       "shapes are static");
  progress_stage("importing " + model_path.filename().string());
  std::unique_ptr<Graph> graph = tflite ? import_tflite(model_path) : import_onnx(model_path, io);
  return compile_graph(std::move(graph), model_path.filename().string(), o, true);
}

CompiledModule compile_model_in_memory(std::vector<uint8_t> model_bytes, const CompileOptions& options) {
  CompileOptions o = options;
  if (o.output_dir.empty()) o.output_dir = "module";
  check_options(o);
  // The same content sniffing as for files: the TFLite identifier at bytes 4..8.
  const bool tflite = model_bytes.size() >= 8 && std::memcmp(model_bytes.data() + 4, "TFL3", 4) == 0;
  if (tflite) {
    tflite::Model m = tflite::load_tflite_buffer(ConstantBuffer::owned(std::move(model_bytes)), "model.tflite");
    return compile_graph(import_tflite_model(m, "model.tflite"), "model.tflite", o, false);
  }
  std::unique_ptr<Graph> graph = import_onnx_from_memory(std::move(model_bytes), import_options_for(o));
  return compile_graph(std::move(graph), "model.onnx", o, false);
}

}  // namespace kiln
