#include "driver/memory_plan.h"

#include "planner/pool_spec.h"
#include "util/error.h"

namespace kiln {

namespace {

planner::BufferKind planner_kind(BufferKind k) {
  switch (k) {
    case BufferKind::Activation: return planner::BufferKind::Activation;
    case BufferKind::Scratch: return planner::BufferKind::Scratch;
    case BufferKind::Input: return planner::BufferKind::Input;
    case BufferKind::Output: return planner::BufferKind::Output;
    case BufferKind::Constant: return planner::BufferKind::Constant;
  }
  return planner::BufferKind::Activation;
}

}  // namespace

MemoryPlan plan_program_memory(const BufferizedProgram& program, const MemoryPlanOptions& options) {
  MemoryPlan mp;
  mp.problem.pools = options.pools;
  std::vector<planner::PinRule> pins;
  for (const auto& p : options.pins) pins.push_back(planner::parse_pin(p, mp.problem.pools));

  std::vector<int> workspace_pools, parameter_pools;
  for (size_t i = 0; i < mp.problem.pools.size(); ++i)
    (mp.problem.pools[i].kind == planner::PoolKind::Workspace ? workspace_pools : parameter_pools).push_back(int(i));

  mp.emit.buffer_pool.assign(program.buffers.size(), -1);
  mp.emit.buffer_offset.assign(program.buffers.size(), 0);
  for (const Buffer& b : program.buffers) {
    // Caller-owned inputs and outputs are not planned (unless --io-in-workspace).
    if (b.kind == BufferKind::Input || b.kind == BufferKind::Output) continue;
    planner::BufferInfo info;
    info.id = int(mp.problem.buffers.size());
    info.name = b.name;
    info.size_bytes = b.size_bytes;
    info.alignment = b.alignment;
    info.first = b.first;
    info.last = b.last;
    info.kind = planner_kind(b.kind);
    info.pool_candidates = b.kind == BufferKind::Constant ? parameter_pools : workspace_pools;
    for (const auto& pin : pins) planner::apply_pin(pin, &info, mp.problem.pools);
    mp.problem.buffers.push_back(std::move(info));
    mp.program_buffer.push_back(b.id);
    mp.origins.push_back(b.origin);
  }

  try {
    mp.plan = planner::plan_memory(mp.problem, options.planner);
  } catch (const planner::PlanError& e) {
    throw CompileError(e.what());
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
