#include "cli/plan_command.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>

#include "planner/csv_instance.h"
#include "planner/dsa_search.h"
#include "planner/plan_report.h"
#include "planner/planner.h"
#include "util/error.h"
#include "util/progress.h"
#include "util/quoted.h"

namespace kiln {

void add_plan_command(CLI::App& app) {
  struct Args {
    std::string csv;
    std::string algorithm = "auto";
    uint64_t capacity = 0;
    int64_t budget_ms = 5000;
    std::string report, memory_map;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("plan", "plan a raw memory-planning instance (CSV: id,lower,upper,size)");
  cmd->add_option("--csv", a->csv, "the instance: one buffer per row, live in [lower, upper), size bytes")->required();
  std::string names;
  for (const auto& n : planner::planner_algorithms()) names += (names.empty() ? "" : " | ") + n;
  cmd->add_option("--memory-planner", a->algorithm, names)->capture_default_str();
  cmd->add_option("--capacity", a->capacity, "hard capacity of the arena in bytes (0: unbounded)")->capture_default_str();
  cmd->add_option("--planner-budget-ms", a->budget_ms, "time budget of the exact search, in milliseconds")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--report", a->report, "write the plan as JSON");
  cmd->add_option("--memory-map", a->memory_map, "write an SVG picture of the plan");
  cmd->callback([a]() {
    planner::PlanProblem problem;
    planner::Plan plan;
    std::optional<uint64_t> capacity;
    if (a->capacity > 0) capacity = a->capacity;
    auto t0 = std::chrono::steady_clock::now();
    try {
      problem = planner::load_csv_instance(a->csv, capacity);
      planner::PlannerOptions o;
      o.algorithm = a->algorithm;
      o.budget_ms = a->budget_ms;
      ProgressDisplay progress(stderr_is_terminal());  // the search's progress on a terminal
      progress_stage("planning " + std::to_string(problem.buffers.size()) + " buffers (" + a->algorithm + ")");
      planner::set_search_progress_hook(&progress_fraction);
      plan = planner::plan_memory(problem, o);
    } catch (const planner::PlanError& e) {
      throw CompileError(e.what());
    }
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::string bad = planner::verify_plan(problem, plan);
    if (!bad.empty()) throw std::logic_error("the plan failed independent verification: " + bad);
    const auto& u = plan.pools[0];
    std::printf("instance:       %s (%zu buffers)\n", a->csv.c_str(), problem.buffers.size());
    std::printf("algorithm:      %s\n", plan.algorithm.c_str());
    std::printf("height:         %llu bytes\n", static_cast<unsigned long long>(u.size_bytes));
    std::printf("lower bound:    %llu bytes (%.4fx)\n", static_cast<unsigned long long>(u.lower_bound),
                u.lower_bound ? double(u.size_bytes) / double(u.lower_bound) : 1.0);
    if (capacity) std::printf("capacity:       %llu bytes (fits)\n", static_cast<unsigned long long>(*capacity));
    std::printf("time:           %.1f ms\n", ms);
    std::printf("proven optimal: %s\n", plan.proven_optimal ? "yes" : "no");
    std::vector<std::string> origins;
    if (!a->report.empty()) {
      std::ofstream out(a->report);
      if (!out) throw CompileError("cannot write " + in_quotes(a->report));
      out << planner::plan_to_json(problem, plan, origins).dump(2) << "\n";
    }
    if (!a->memory_map.empty()) {
      std::ofstream out(a->memory_map);
      if (!out) throw CompileError("cannot write " + in_quotes(a->memory_map));
      out << planner::plan_to_svg(problem, plan, origins);
    }
  });
}

}  // namespace kiln
