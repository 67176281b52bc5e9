// The unified static memory planner's interface.
//
// The planner knows nothing about ONNX or kernels: it sees buffers (size,
// alignment, live interval in schedule steps, candidate pools) and pools, and
// returns a pool and an offset for every buffer. Two buffers conflict when their
// live intervals overlap, unless they are mutually exclusive alternatives (tagged
// with the same group and different sides: never used in the same run);
// conflicting buffers in the same pool must not overlap in address. An algorithm
// is one function from a PlanProblem to a Plan.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace kiln::planner {

// State: bytes kept between runs of the planned program (a model's variables). It
// shares its bytes with no other buffer of its pool, whatever their intervals and
// sides: plan_memory plans it as live over the whole program, and verify_plan
// checks the stronger rule.
enum class BufferKind { Activation, Scratch, Input, Output, Constant, State };
enum class PoolKind { Workspace, Parameter };

// Mutual exclusivity: a run uses the buffers of at most one side of each group (a
// client maps, e.g., the two arms of a run-time branch to sides 1 and 2 of one
// group). A buffer tagged (g, s) is only touched by runs that take side s of g.
struct ExclusiveTag {
  int group = 0;
  int side = 0;
};

struct BufferInfo {
  int id = 0;                 // index into PlanProblem::buffers
  std::string name;           // for messages and reports
  uint64_t size_bytes = 0;
  uint32_t alignment = 1;     // power of two
  // Live interval in schedule steps, half-open: [first, last). A buffer written by
  // step s and last read by step t has first = s, last = t + 1.
  int64_t first = 0;
  int64_t last = 0;
  std::vector<int> pool_candidates;  // indices into PlanProblem::pools, in priority order
  BufferKind kind = BufferKind::Activation;
  // Sides this buffer is confined to (at most one per group; empty: every run).
  // Two buffers with different sides of one group never conflict.
  std::vector<ExclusiveTag> exclusive;
};

struct Pool {
  std::string name;
  PoolKind kind = PoolKind::Workspace;
  std::optional<uint64_t> capacity;  // hard limit in bytes; none = unbounded
  uint32_t alignment = 16;           // alignment of the pool base; offsets respect buffers' own
  std::string section;               // optional linker section (emission only)
  std::string target;                // optional free-form target tag (reports only)
  bool is_user = true;               // false: an internal pool the module allocates itself
};

struct PlanProblem {
  std::vector<BufferInfo> buffers;
  std::vector<Pool> pools;
};

struct Placement {
  int pool = -1;
  uint64_t offset = 0;
};

struct PoolUsage {
  uint64_t size_bytes = 0;    // end of the highest placed buffer (aligned to pool alignment)
  uint64_t lower_bound = 0;   // max over steps of the heaviest set of buffers live there that pairwise conflict
};

struct Plan {
  std::vector<Placement> placements;  // indexed by buffer id
  std::vector<PoolUsage> pools;       // indexed by pool
  std::string algorithm;              // which algorithm produced it
  bool proven_optimal = false;        // set by `exact` when the search completed
};

// Plans with greedy-by-size (best-fit gap filling, larger buffers first).
// Buffers are tried in each candidate pool in priority order; a buffer that does
// not fit a pool's capacity spills to the next. Throws PlanError when some buffer
// fits no candidate pool (the message names the buffer, its size and live range,
// and each pool's shortfall).
Plan plan_greedy_by_size(const PlanProblem& problem);

struct PlanError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct PlannerOptions {
  std::string algorithm = "auto";  // see planner_algorithms()
  int64_t budget_ms = 5000;        // time budget of the exact search
  uint64_t seed = 1;               // hill-climb's fixed seed: plans are deterministic
};

// The algorithm names plan_memory accepts.
std::vector<std::string> planner_algorithms();

// Plans with the named algorithm. Throws PlanError for an unknown name or when a
// buffer fits no candidate pool. State buffers are planned as live from the first
// step any buffer is live to the last, on every side.
Plan plan_memory(const PlanProblem& problem, const PlannerOptions& options);

// Lower bound per pool given an assignment of buffers to pools.
std::vector<uint64_t> lower_bounds(const PlanProblem& problem, const std::vector<Placement>& placements);

// Independent check of a plan: every buffer placed in one of its candidate pools,
// aligned, within capacity, and no two conflicting buffers (overlapping live
// intervals, not mutually exclusive) overlapping in address within a pool, and no
// State buffer sharing bytes with any other buffer of its pool live at some step. Returns an empty string when the plan is
// valid, otherwise a description of the first violation.
std::string verify_plan(const PlanProblem& problem, const Plan& plan);

}  // namespace kiln::planner
