#include "driver/memory_plan.h"

#include <algorithm>
#include <tuple>

#include "planner/pool_spec.h"
#include "util/error.h"
#include "util/quoted.h"

namespace kiln {

namespace {

planner::BufferKind planner_kind(BufferKind k) {
  switch (k) {
    case BufferKind::Activation: return planner::BufferKind::Activation;
    case BufferKind::Scratch: return planner::BufferKind::Scratch;
    case BufferKind::Input: return planner::BufferKind::Input;
    case BufferKind::Output: return planner::BufferKind::Output;
    case BufferKind::Constant: return planner::BufferKind::Constant;
    case BufferKind::State: return planner::BufferKind::State;
  }
  return planner::BufferKind::Activation;
}

// The steps an input or output placed in a workspace pool must keep its bytes:
// the caller writes an input before the run and it is needed until its last
// reader; an output is written by its first writer and read by the caller after
// the run. (Bufferization gives caller buffers the whole run, which is right for
// memory the planner does not own.)
std::pair<int64_t, int64_t> io_interval(const BufferizedProgram& program, const Buffer& b) {
  const int64_t steps = int64_t(program.ops.size());
  const int64_t end = std::max<int64_t>(steps, 1);
  int64_t first = -1, last = -1;
  for (int64_t i = 0; i < steps; ++i) {
    const auto& op = program.ops[size_t(i)];
    for (const auto* refs : {&op.inputs, &op.outputs, &op.scratch})
      for (const auto& r : *refs)
        if (r.buffer == b.id) {
          if (first < 0) first = i;
          last = i;
        }
  }
  if (b.kind == BufferKind::Input) return {0, std::max<int64_t>(last + 1, 1)};
  return {first < 0 ? end - 1 : first, end};
}

constexpr const char* kStatePool = "state";

bool state_pool_needed(const BufferizedProgram& program) {
  return std::any_of(program.buffers.begin(), program.buffers.end(),
                     [](const Buffer& b) { return b.kind == BufferKind::State; });
}

// State kept between runs lives in the workspace pool named "state": the user's
// (--with-workspace-buffer "name=state;..."), else an internal one added here. It
// is a pool of its own (nothing else goes there unless --pin puts it there)
// because the other workspace pools are scratch: the caller may share them with
// other models between runs. When the user's only workspace pool is "state", the
// other buffers get an internal pool.
void add_state_pools(const BufferizedProgram& program, std::vector<planner::Pool>* pools) {
  if (!state_pool_needed(program)) return;
  bool state = false, other = false;
  for (const auto& p : *pools)
    if (p.kind == planner::PoolKind::Workspace) (p.name == kStatePool ? state : other) = true;
  for (const char* name : {kStatePool, "internal"}) {
    if (std::string(name) == kStatePool ? state : other) continue;
    planner::Pool p;
    p.name = name;
    p.kind = planner::PoolKind::Workspace;
    p.is_user = false;
    pools->push_back(p);
  }
}

}  // namespace

MemoryPlan plan_program_memory(const BufferizedProgram& program, const MemoryPlanOptions& options) {
  MemoryPlan mp;
  mp.problem.pools = options.pools;
  add_state_pools(program, &mp.problem.pools);
  std::vector<planner::PinRule> pins;
  for (const auto& p : options.pins) pins.push_back(planner::resolve_pin(p, mp.problem.pools));

  std::vector<int> workspace_pools, parameter_pools, state_pools;
  for (size_t i = 0; i < mp.problem.pools.size(); ++i) {
    const auto& pool = mp.problem.pools[i];
    if (pool.kind == planner::PoolKind::Parameter) parameter_pools.push_back(int(i));
    else (pool.name == kStatePool && state_pool_needed(program) ? state_pools : workspace_pools).push_back(int(i));
  }

  mp.emit.buffer_pool.assign(program.buffers.size(), -1);
  mp.emit.buffer_offset.assign(program.buffers.size(), 0);
  for (const Buffer& b : program.buffers) {
    // Caller-owned inputs and outputs are not planned (unless --io-in-workspace).
    const bool io = b.kind == BufferKind::Input || b.kind == BufferKind::Output;
    if (io && !options.io_in_workspace) continue;
    planner::BufferInfo info;
    info.id = int(mp.problem.buffers.size());
    info.name = b.name;
    info.size_bytes = b.size_bytes;
    info.alignment = b.alignment;
    info.first = b.first;
    info.last = b.last;
    if (io) std::tie(info.first, info.last) = io_interval(program, b);
    info.kind = planner_kind(b.kind);
    // The two arms of a run-time If: sides 1 (then) and 2 (else) of the condition's group.
    for (const auto& [group, when] : b.only_when) info.exclusive.push_back({group, when ? 1 : 2});
    info.pool_candidates = b.kind == BufferKind::Constant ? parameter_pools
                           : b.kind == BufferKind::State  ? state_pools
                                                          : workspace_pools;
    for (const auto& pin : pins) planner::apply_pin(pin, &info, mp.problem.pools);
    mp.problem.buffers.push_back(std::move(info));
    mp.program_buffer.push_back(b.id);
    mp.origins.push_back(b.origin);
  }

  try {
    mp.plan = planner::plan_memory(mp.problem, options.planner);
  } catch (const planner::PlanError& e) {
    // The planner may include nothing (docs/architecture.md), so its messages quote
    // buffer names (the model's) as they are: they become one clean line here.
    throw CompileError(escaped(e.what(), kMaxPlannerMessageBytes));
  }
  std::string bad = planner::verify_plan(mp.problem, mp.plan);
  if (!bad.empty()) throw std::logic_error("the memory plan failed independent verification: " + bad);

  for (size_t i = 0; i < mp.problem.buffers.size(); ++i) {
    int b = mp.program_buffer[i];
    mp.emit.buffer_pool[size_t(b)] = mp.plan.placements[i].pool;
    mp.emit.buffer_offset[size_t(b)] = mp.plan.placements[i].offset;
  }
  for (size_t p = 0; p < mp.problem.pools.size(); ++p) {
    const auto& pool = mp.problem.pools[p];
    EmitPool ep;
    ep.name = pool.name;
    ep.is_workspace = pool.kind == planner::PoolKind::Workspace;
    ep.is_user = pool.is_user;
    ep.size_bytes = mp.plan.pools[p].size_bytes;
    ep.alignment = pool.alignment;
    ep.section = pool.section;
    ep.capacity = pool.capacity;
    mp.emit.pools.push_back(ep);
  }
  return mp;
}

}  // namespace kiln
