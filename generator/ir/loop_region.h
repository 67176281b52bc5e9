// Loop regions: a Loop whose body runs as a C `for` loop (controlflow/control_flow.h
// decides which Loops become regions and which are unrolled).
//
// In the graph a region is the run of nodes between a KilnLoopBegin and its
// KilnLoopEnd in the schedule (the body, instantiated once). Regions nest; no node
// of the enclosing graph is ever placed inside one (the schedule keeps the program
// order of a graph with regions, and the passes that insert nodes do it next to an
// anchor of the same region).
//
//   KilnLoopBegin  inputs  [M or null, cond or null, v_initial_0 .. v_initial_{n-1}]
//                  outputs [iteration_num (int64), cond_in (bool), state_0 .. state_{n-1}]
//     Before the loop: state_k = v_initial_k; then, at the top of every iteration,
//     iteration_num and cond_in (true) are written. The body reads these outputs.
//   KilnLoopEnd    inputs  [iteration_num, cond_in, state_0 .. state_{n-1},
//                           cond_out, next_0 .. next_{n-1}, scan_0 .. scan_{k-1}]
//                  outputs [final_0 .. final_{n-1}, scan_output_0 .. scan_output_{k-1}]
//                  attrs   carried = n, scan_length = the scan outputs' number of
//                          rows (-1 without scan outputs), check_length = 1 when the
//                          run must check that exactly scan_length iterations ran
//     At the end of every iteration: the loop goes on while cond_out (and the trip
//     count) allow, scan_j is written at row iteration_num of scan_output_j, and
//     state_k = next_k. After the loop: final_k = state_k.
// Reading the Begin's outputs makes the End their last user, so every loop-carried
// buffer stays live through the whole body (bufferize/bufferize.h extends values of
// the enclosing graph read inside a region the same way).
#pragma once

#include <cstdint>
#include <map>

#include "ir/graph.h"

namespace kiln {

inline constexpr const char* kLoopBeginOp = "KilnLoopBegin";
inline constexpr const char* kLoopEndOp = "KilnLoopEnd";

// A run of a Loop region that has not stopped after this many iterations fails
// (KILN_ERR_BAD_ARGUMENT); a compile-time trip count above it is refused.
inline constexpr int64_t kMaxLoopIterations = 1000000;

bool is_loop_begin(const Node& n);
bool is_loop_end(const Node& n);

// The innermost region each node of `g` runs in: the schedule index of its region's
// KilnLoopBegin among the graph's nodes, or -1 outside every region. A Begin and
// its End belong to the enclosing region. Throws std::logic_error when Begins and
// Ends do not nest.
std::map<const Node*, int64_t> loop_regions(const Graph& g);

}  // namespace kiln
