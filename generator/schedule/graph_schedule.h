// The bridge between a graph and the scheduler (schedule/schedule.h): builds the
// scheduling problem from the graph's values and its nodes' lowerings (views share
// their source's storage, Concat inputs written into their slice share the Concat's,
// element-wise ops may run in place), and reorders Graph::nodes.
//
// --schedule:
//   program   the order the model lists its nodes in (topological), unchanged;
//   min-peak  the order of least peak the search finds (exact where the number of
//             partial schedules stays small, a beam search beyond);
//   auto      min-peak, kept only when the bufferized program's peak of live bytes
//             is lower than the program order's (the model of the search ignores
//             alignment and a few bufferizer rules, so it is checked on the real thing).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bufferize/bufferize.h"
#include "ir/graph.h"
#include "schedule/schedule.h"

namespace kiln {

struct ScheduleReport {
  std::string mode = "auto";
  bool searched = false;          // the search ran (not for `program`, or a graph it does not take)
  bool reordered = false;         // the graph's order changed
  bool exact = true;              // the search was exhaustive
  uint64_t states = 0;            // partial schedules the search visited
  uint64_t any_order_bound = 0;   // no order needs less (largest single operator, model)
  uint64_t program_peak = 0;      // peak of live workspace bytes, program order (bufferized)
  uint64_t chosen_peak = 0;       // the same for the order used
  std::string note;               // why the order was kept, or why no search ran
};

// The schedule modes --schedule accepts.
std::vector<std::string> schedule_modes();

// Peak over the schedule of the bytes of live activation and scratch buffers
// (each rounded up to its alignment): the workspace a plan of this program needs
// at least, before the planner's own alignment refinement.
uint64_t live_peak(const BufferizedProgram& program);
// The ops with scratch buffers at the steps where live_peak is reached (what
// --memory-priority auto may give lean tiles, driver/memory_tuning.h).
std::vector<const Node*> scratch_ops_at_peak(const BufferizedProgram& program);

// Chooses the order per `mode` and reorders g.nodes (`lowered`: every node's kernel
// call, lower/lowering.h). The problem counts an activation's bytes rounded up to
// `activation_alignment`, as the bufferizer will place it (BufferizeOptions), so its
// order-independent bound is comparable with live_peak. `bound_of` bufferizes the
// graph in its current order and returns live_peak (the caller owns bufferization
// options). Throws CompileError for an unknown mode.
ScheduleReport schedule_graph(Graph& g, const std::string& mode, const LoweredGraph& lowered,
                              uint32_t activation_alignment, const std::function<uint64_t(const Graph&)>& bound_of);

// The graph's node order, and setting it back: `order` must hold the nodes of
// g.nodes, each once (e.g. node_order(g) taken before a later schedule_graph
// reordered them); anything else is an internal error (std::logic_error).
std::vector<const Node*> node_order(const Graph& g);
void set_node_order(Graph& g, const std::vector<const Node*>& order);

nlohmann::json schedule_report_json(const ScheduleReport& r);
std::string schedule_report_text(const ScheduleReport& r);

}  // namespace kiln
