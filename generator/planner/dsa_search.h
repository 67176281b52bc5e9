// The exact search for one pool: dynamic storage allocation (place rectangles
// with fixed time extent and height, minimise the highest top) by branch and
// bound. Used by the `exact` planner (exact.cpp) once every buffer has a pool.
//
// Ideas (after MiniMalloc, ASPLOS'23; derived and written here from scratch):
//  - canonical placements: every buffer sits at 0 or right on top of a buffer it
//    conflicts with ("gravity"), and buffers are placed bottom-up, left to right:
//    the next decision is always about the lowest, leftmost point still open;
//  - per-section capacity floors: for each time section, the floor (lowest free
//    address above which all its unplaced buffers must go) plus the sizes of
//    those buffers must fit below the capacity being tried;
//  - a dominance cut: a buffer that would float above wasted space (not resting
//    on any buffer) is never placed, and identical buffers are placed in id order;
//  - decomposition: at time points no buffer crosses, the problem splits into
//    independent subproblems, each searched on its own.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

namespace kiln::planner {

struct DsaItem {
  int64_t first = 0;  // live in [first, last)
  int64_t last = 0;
  uint64_t size = 0;
  uint32_t align = 1;  // power of two
};

// Work limit shared by all searches of one plan. Node counts, not the clock,
// decide when a search stops, so a plan never depends on machine load; the clock
// is only a safety net (a search is abandoned at four times the budget + 1 s).
// Called every few thousand search nodes with the nodes spent and the budget's
// limit (the CLI shows it on a terminal); null: nobody listens.
using SearchProgressHook = void (*)(uint64_t nodes, uint64_t node_limit);
void set_search_progress_hook(SearchProgressHook hook);

struct SearchBudget {
  uint64_t node_limit = 0;
  uint64_t nodes = 0;
  std::chrono::steady_clock::time_point hard_deadline;
  bool exhausted = false;

  static SearchBudget from_ms(int64_t budget_ms);
  // Counts one node; false once the budget is spent.
  bool spend();
};

struct DsaOutcome {
  std::vector<uint64_t> offsets;  // per item; empty when no placement was found
  uint64_t height = 0;            // highest top of the placement found
  uint64_t lower_bound = 0;       // max over time of the live size sum
  bool proven_optimal = false;    // no placement below `height` exists
  bool proven_infeasible = false; // nothing fits within the capacity
};

// Minimises the height of `items` within `capacity` (UINT64_MAX: unbounded).
// `incumbent`, when not empty, is a valid placement to improve on (e.g. a
// greedy's). Returns the best placement found within the budget.
DsaOutcome minimise_height(const std::vector<DsaItem>& items, const std::vector<uint64_t>& incumbent,
                           uint64_t capacity, SearchBudget* budget);

}  // namespace kiln::planner
