#include "cli/compile_options.h"

#include <sstream>

#include "cli/pool_flags.h"
#include "util/error.h"
#include "util/quoted.h"

namespace kiln {

namespace {

// "1,3,32,32" -> {1,3,32,32}; "" -> {} (a scalar). Errors name the flag and its whole spec.
Shape parse_dims(const std::string& text, const std::string& flag, const std::string& spec) {
  Shape shape;
  if (text.empty()) return shape;  // a scalar element
  std::stringstream dims(text);
  std::string d;
  while (std::getline(dims, d, ',')) {
    try {
      size_t used = 0;
      long long v = std::stoll(d, &used);
      if (used != d.size() || v < 0) throw std::invalid_argument(d);
      shape.push_back(v);
    } catch (const std::exception&) {
      throw CompileError(flag + " " + in_quotes(spec) + ": " + in_quotes(d) + " is not a non-negative integer");
    }
  }
  return shape;
}

}  // namespace


// "x=1,3,224,224" -> ("x", {1,3,224,224}).
std::pair<std::string, Shape> parse_input_shape(const std::string& spec) {
  auto eq = spec.rfind('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 >= spec.size())
    throw CompileError("--input-shape " + in_quotes(spec) + ": expected NAME=D0,D1,... (e.g. input=1,3,32,32)");
  return {spec.substr(0, eq), parse_dims(spec.substr(eq + 1), "--input-shape", spec)};
}

// "sr=16000" -> ("sr", {16000}); "mode=true"; "w=0.5,-1,2e3".
std::pair<std::string, std::vector<double>> parse_input_value(const std::string& spec) {
  auto eq = spec.rfind('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 >= spec.size())
    throw CompileError("--input-value " + in_quotes(spec) + ": expected NAME=V0,V1,... (e.g. sample_rate=16000)");
  std::vector<double> values;
  std::stringstream items(spec.substr(eq + 1));
  std::string v;
  while (std::getline(items, v, ',')) {
    if (v == "true" || v == "false") {
      values.push_back(v == "true" ? 1.0 : 0.0);
      continue;
    }
    try {
      size_t used = 0;
      double d = std::stod(v, &used);
      if (used != v.size()) throw std::invalid_argument(v);
      values.push_back(d);
    } catch (const std::exception&) {
      throw CompileError("--input-value " + in_quotes(spec) + ": " + in_quotes(v) + " is not a number");
    }
  }
  return {spec.substr(0, eq), values};
}

// "x=3:2,4" -> ("x", {[2,4],[2,4],[2,4]}); "x=2,4;3" -> ("x", {[2,4],[3]});
// "x=0:" -> ("x", {}) (an empty sequence).
std::pair<std::string, std::vector<Shape>> parse_sequence_input_spec(const std::string& spec) {
  auto eq = spec.find('=');
  if (eq == std::string::npos || eq == 0)
    throw CompileError("--sequence-input " + in_quotes(spec) +
                       ": expected NAME=COUNT:D0,D1,... or NAME=D0,D1;D0,D1;... (e.g. seq=3:2,4)");
  const std::string name = spec.substr(0, eq), rest = spec.substr(eq + 1);
  std::vector<Shape> shapes;
  auto colon = rest.find(':');
  if (colon != std::string::npos) {
    int64_t count = -1;
    try {
      size_t used = 0;
      count = std::stoll(rest.substr(0, colon), &used);
      if (used != colon || count < 0) count = -1;
    } catch (const std::exception&) {
    }
    if (count < 0) throw CompileError("--sequence-input " + in_quotes(spec) + ": the count before ':' must be a non-negative integer");
    Shape s = parse_dims(rest.substr(colon + 1), "--sequence-input", spec);
    shapes.assign(size_t(count), s);
  } else {
    std::stringstream parts(rest);
    std::string part;
    while (std::getline(parts, part, ';')) shapes.push_back(parse_dims(part, "--sequence-input", spec));
    if (rest.empty()) throw CompileError("--sequence-input " + in_quotes(spec) + ": no element shape given (use NAME=0: for an empty sequence)");
  }
  return {name, shapes};
}

void add_compile_options(CLI::App* cmd, CompileOptions* o) {
  cmd->add_option("--module-name", o->module_name,
                  "C name prefix of the generated module (symbols kiln_<name>_*, macros KILN_<NAME>_*)")
      ->capture_default_str();
  cmd->add_option_function<std::vector<std::string>>(
      "--with-workspace-buffer",
      [o](const std::vector<std::string>& specs) {
        for (const auto& s : specs)
          add_user_pool(&o->workspace_pools, parse_pool_flag(s, planner::PoolKind::Workspace, "--with-workspace-buffer"));
      },
      "a workspace pool \"name=N;size=BYTES;align=A;section=S\" (repeatable; order is priority; "
                  "size is a hard capacity, a buffer that does not fit spills to the next pool)");
  cmd->add_option_function<std::vector<std::string>>(
      "--with-parameter-buffer",
      [o](const std::vector<std::string>& specs) {
        for (const auto& s : specs)
          add_user_pool(&o->parameter_pools, parse_pool_flag(s, planner::PoolKind::Parameter, "--with-parameter-buffer"));
      },
      "a parameter (constant) pool \"name=N;size=BYTES;align=A;section=S\" (repeatable)");
  cmd->add_option_function<std::vector<std::string>>(
      "--pin",
      [o](const std::vector<std::string>& specs) {
        for (const auto& s : specs) o->pins.push_back(parse_pin_flag(s));
      },
      "\"PATTERN=POOL[,POOL...]\": restrict buffers whose name matches the glob PATTERN to these pools");
  cmd->add_option("--memory-planner", o->memory_planner,
                  "auto | greedy-by-size | greedy-by-conflicts | greedy-by-area | greedy-by-lifetime | hill-climb | exact")
      ->capture_default_str();
  cmd->add_option("--planner-budget-ms", o->planner_budget_ms, "time budget of the exact planner, in milliseconds")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--io-in-workspace", o->io_in_workspace,
                "place inputs and outputs inside a workspace pool (reach them with kiln_<mod>_map_inputs/_outputs)");
  cmd->add_option_function<std::vector<std::string>>(
      "--input-shape",
      [o](const std::vector<std::string>& specs) {
        for (const auto& s : specs) o->input_shapes.insert(parse_input_shape(s));
      },
      "NAME=D0,D1,...: fix the shape of a graph input with dynamic dimensions (repeatable)");
  cmd->add_option_function<std::vector<std::string>>(
      "--input-value",
      [o](const std::vector<std::string>& specs) {
        for (const auto& s : specs) o->input_values.insert(parse_input_value(s));
      },
      "NAME=V0,V1,...: fix a graph input's value at compile time (e.g. a sample rate); it becomes a constant, "
      "what it decides folds away, and it leaves the generated API (repeatable)");
  cmd->add_option_function<std::vector<std::string>>(
      "--sequence-input",
      [o](const std::vector<std::string>& specs) {
        for (const auto& s : specs) o->sequence_inputs.insert(parse_sequence_input_spec(s));
      },
      "NAME=COUNT:D0,D1,... or NAME=D0,D1;D0,D1;...: element count and shapes of a sequence-typed graph input "
      "(repeatable; exposed as inputs NAME_0 .. NAME_{COUNT-1})");
  cmd->add_option("--fold-size-limit", o->fold_size_limit,
                  "largest constant (bytes) a fold may create; bigger Expand/Tile results stay runtime ops")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("!--no-fold", o->fold, "skip constant folding and graph simplification");
  cmd->add_flag("!--float-qdq", o->integer_quantized,
                "keep a quantized model's ops in float between DequantizeLinear / QuantizeLinear "
                "(default: rewrite them to integer ops)");
  cmd->add_flag("--verify-graph", o->verify_graph,
                "check the graph's invariants and Kiln's operator definitions after every pass (a failure is a "
                "Kiln bug; on by default in debug builds and with KILN_VERIFY_GRAPH=1)");
  cmd->add_flag("!--no-alias", o->alias_views, "give view ops (Reshape, Flatten, ...) their own buffer and a copy");
  cmd->add_flag("!--no-in-place", o->in_place, "never let an element-wise op overwrite its input");
  cmd->add_flag("!--no-overlap", o->overlap,
                "never place an output across the bytes of the input it consumes (depthwise / 1x1 convolutions), "
                "and keep Conv -> Add residuals as two ops");
  cmd->add_option("--memory-priority", o->memory_priority,
                  "scratch tiles (im2col, 1x1 gather): speed | ram (smaller tiles, more instructions) | auto (speed, "
                  "ram when the speed plan does not fit the pools' capacities)")
      ->capture_default_str();
  cmd->add_option("--schedule", o->schedule,
                  "operator order: auto (the order of least memory peak when it lowers the peak) | program (the "
                  "model's order) | min-peak (always the searched order)")
      ->capture_default_str();
  cmd->add_option("--executor", o->executor, "executor (only 'aot')")->capture_default_str()->check(CLI::IsMember({"aot"}));
  cmd->add_option("--target", o->target, "code generation target (only 'c')")->capture_default_str()->check(CLI::IsMember({"c"}));
  cmd->add_option("--mcpu", o->mcpu, "target CPU, e.g. cortex-m4 (recorded in the report; -mcpu=... also works)");
  cmd->add_option("--output-format", o->output_format,
                  "dir: a folder of C files; mlf: additionally a Model Library Format tar (<dir>.tar)")
      ->capture_default_str()
      ->check(CLI::IsMember({"dir", "mlf"}));
  cmd->add_option("--report", o->report_path, "write a JSON report: plan per buffer and pool, folding, copies");
  cmd->add_option("--memory-map", o->memory_map_path, "write an SVG picture of the memory plan");
  cmd->add_flag("-q,--quiet", o->quiet, "do not print the summary");
}

}  // namespace kiln
