// Operator scheduling for a low memory peak.
//
// Like the planner, the scheduler knows nothing about ONNX or kernels. It sees a
// dependency graph of steps over storages (a storage is the bytes some values
// share: a tensor and its views, or a Concat and the inputs written into it):
//
//  * a storage is born when the first of its producers runs and dies after the
//    last of its users ran (a persistent one, or one no step produces, lives on);
//  * while a step runs, the live storages, the storages it creates and its
//    scratch bytes are all held at once;
//  * a step may declare (read, written) pairs it can run in place: when the step is
//    the last user of `read`, `written` shares its bytes (in place, or partly over
//    them): the two together take the larger of their sizes, not the sum.
//
// The peak of an order is the largest amount held at any step. min_peak_order
// finds an order of least peak by dynamic programming over the sets of steps
// already run (the "frontier" of SERENITY, Ahn et al., MLSys'20: the future of a
// partial schedule depends only on which steps ran, not on their order). The
// number of such sets is small for the chains-with-branches of CNNs; when a layer
// of the search grows past a cap, only its best states are kept (a beam search,
// no longer exact; `Result::exact` says which).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kiln::schedule {

struct Storage {
  uint64_t bytes = 0;
  std::vector<int> producers;  // steps that write it (born with the first of them)
  std::vector<int> users;      // steps that read it
  bool persistent = false;     // lives to the end once born (e.g. a result)
};

struct Step {
  std::vector<int> deps;     // steps that must run before this one
  std::vector<int> reads;    // storages read
  std::vector<int> writes;   // storages written (born here unless already born)
  uint64_t scratch = 0;      // bytes held only while this step runs
  std::vector<std::pair<int, int>> in_place;  // (read storage, written storage)
};

struct Problem {
  std::vector<Storage> storages;
  std::vector<Step> steps;
};

struct Result {
  std::vector<int> order;  // a topological order of all steps
  uint64_t peak = 0;       // its peak (evaluate_peak)
  bool exact = true;       // false when the search had to drop states
  uint64_t states = 0;     // states the search visited
};

// The peak bytes of running the steps in `order` (which must be topological and
// complete: throws std::invalid_argument otherwise).
uint64_t evaluate_peak(const Problem& p, const std::vector<int>& order);

// The bytes a step needs whatever the order: its own reads, writes and scratch
// (a read it could overwrite in place counted once). The largest over all steps is
// a lower bound of every order's peak.
uint64_t order_independent_bound(const Problem& p);

// An order of least peak (ties: the earliest step in index order first, so a
// problem whose index order is optimal keeps it). `max_states_per_layer` caps each
// layer of the search; 0, the default, caps the whole search instead (a few
// hundred thousand states: the layers of a wide graph get narrower beams).
Result min_peak_order(const Problem& p, uint64_t max_states_per_layer = 0);

// Throws std::invalid_argument naming the problem when ids are out of range or
// the dependencies have a cycle.
void check_problem(const Problem& p);

}  // namespace kiln::schedule
