// The independent plan checker. Deliberately simple (all pairs) and sharing no
// code with the algorithms, so a bug in them cannot hide a bug here.
#include <sstream>

#include "planner/planner.h"

namespace kiln::planner {

namespace {

// Some group holds a and b on different sides: no run uses both.
bool never_together(const BufferInfo& a, const BufferInfo& b) {
  for (size_t i = 0; i < a.exclusive.size(); ++i)
    for (size_t j = 0; j < b.exclusive.size(); ++j)
      if (a.exclusive[i].group == b.exclusive[j].group && a.exclusive[i].side != b.exclusive[j].side) return true;
  return false;
}

}  // namespace

std::string verify_plan(const PlanProblem& problem, const Plan& plan) {
  const auto& bs = problem.buffers;
  std::ostringstream err;
  if (plan.placements.size() != bs.size()) return "plan has " + std::to_string(plan.placements.size()) +
                                                  " placements for " + std::to_string(bs.size()) + " buffers";
  for (size_t i = 0; i < bs.size(); ++i) {
    const auto& b = bs[i];
    const auto& p = plan.placements[i];
    bool candidate = false;
    for (int c : b.pool_candidates) candidate |= c == p.pool;
    if (!candidate) return "buffer '" + b.name + "' is in pool " + std::to_string(p.pool) + ", not one of its candidates";
    const Pool& pool = problem.pools[size_t(p.pool)];
    if (b.alignment > 1 && (p.offset % b.alignment) != 0)
      return "buffer '" + b.name + "' at offset " + std::to_string(p.offset) + " is not " +
             std::to_string(b.alignment) + "-byte aligned";
    if (b.alignment > pool.alignment)
      return "buffer '" + b.name + "' needs " + std::to_string(b.alignment) + "-byte alignment but pool '" +
             pool.name + "' is only " + std::to_string(pool.alignment) + "-byte aligned";
    if (pool.capacity && p.offset + b.size_bytes > *pool.capacity)
      return "buffer '" + b.name + "' ends at " + std::to_string(p.offset + b.size_bytes) + ", past pool '" +
             pool.name + "' capacity " + std::to_string(*pool.capacity);
    if (p.pool < int(plan.pools.size()) && p.offset + b.size_bytes > plan.pools[size_t(p.pool)].size_bytes)
      return "buffer '" + b.name + "' ends past the reported size of pool '" + pool.name + "'";
  }
  for (size_t i = 0; i < bs.size(); ++i)
    for (size_t j = i + 1; j < bs.size(); ++j) {
      const auto &a = bs[i], &b = bs[j];
      const auto &pa = plan.placements[i], &pb = plan.placements[j];
      if (pa.pool != pb.pool || a.size_bytes == 0 || b.size_bytes == 0) continue;
      bool time = a.first < b.last && b.first < a.last;
      bool space = pa.offset < pb.offset + b.size_bytes && pb.offset < pa.offset + a.size_bytes;
      if (time && space && !never_together(a, b))
        return "buffers '" + a.name + "' and '" + b.name + "' are live together and overlap in pool '" +
               problem.pools[size_t(pa.pool)].name + "'";
      // A State buffer's bytes are kept between runs: no buffer live at any step may use them.
      const bool state = a.kind == BufferKind::State || b.kind == BufferKind::State;
      if (state && space && a.first < a.last && b.first < b.last)
        return "buffers '" + a.name + "' and '" + b.name + "' overlap in pool '" + problem.pools[size_t(pa.pool)].name +
               "' and one of them is state kept between runs";
    }
  return "";
}

}  // namespace kiln::planner
