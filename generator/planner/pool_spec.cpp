#include "planner/pool_spec.h"

#include <set>

namespace kiln::planner {

void check_pool_names(const std::vector<Pool>& pools) {
  std::set<std::pair<int, std::string>> seen;
  for (const auto& p : pools) {
    if (p.name == "internal" && p.is_user) throw PlanError("pool name 'internal' is reserved for Kiln's own pools");
    if (!seen.insert({int(p.kind), p.name}).second)
      throw PlanError(std::string(p.kind == PoolKind::Workspace ? "workspace" : "parameter") + " pool name '" +
                      p.name + "' is used twice");
  }
}

bool glob_match(const std::string& pat, const std::string& s) {
  size_t p = 0, t = 0, star = std::string::npos, mark = 0;
  while (t < s.size()) {
    if (p < pat.size() && (pat[p] == '?' || pat[p] == s[t])) {
      ++p, ++t;
    } else if (p < pat.size() && pat[p] == '*') {
      star = p++, mark = t;
    } else if (star != std::string::npos) {
      p = star + 1, t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pat.size() && pat[p] == '*') ++p;
  return p == pat.size();
}

PinRule resolve_pin(const PinRequest& request, const std::vector<Pool>& pools) {
  PinRule r;
  r.pattern = request.pattern;
  for (const auto& name : request.pools) {
    bool found = false;
    for (size_t i = 0; i < pools.size(); ++i)
      if (pools[i].name == name) r.pools.push_back(int(i)), found = true;
    if (!found) throw PlanError(request.origin + ": no pool named '" + name + "'");
  }
  return r;
}

void apply_pin(const PinRule& rule, BufferInfo* b, const std::vector<Pool>& pools) {
  if (!glob_match(rule.pattern, b->name) || b->pool_candidates.empty()) return;
  PoolKind kind = pools[size_t(b->pool_candidates.front())].kind;
  std::vector<int> c;
  for (int p : rule.pools)
    if (pools[size_t(p)].kind == kind) c.push_back(p);
  if (!c.empty()) b->pool_candidates = c;
}

}  // namespace kiln::planner
