// Pools and pin rules as the planner takes them. The flags' syntax
// (--with-workspace-buffer "name=..;size=..", --pin "PATTERN=POOL,...") is parsed in
// cli/pool_flags.h; the planner knows none of it.
#pragma once

#include <string>
#include <vector>

#include "planner/planner.h"

namespace kiln::planner {

// Throws PlanError when two pools of one kind share a name, or a user pool is
// named 'internal'.
void check_pool_names(const std::vector<Pool>& pools);

// A request to restrict buffers whose name matches `pattern` to the named pools, in
// priority order. `origin` says where it came from, for messages (e.g. the flag).
struct PinRequest {
  std::string pattern;             // glob: '*' any run, '?' any one character
  std::vector<std::string> pools;  // pool names
  std::string origin;
};

struct PinRule {
  std::string pattern;     // glob: '*' any run, '?' any one character
  std::vector<int> pools;  // indices into the pool list, in priority order
};

// The rule of `request` over `pools`: every name must be a pool (of either kind);
// throws PlanError naming the request's origin otherwise.
PinRule resolve_pin(const PinRequest& request, const std::vector<Pool>& pools);
bool glob_match(const std::string& pattern, const std::string& text);
// Restricts `b`'s candidates to the rule's pools of the buffer's own pool kind
// when its name matches; a rule naming no pool of that kind leaves it untouched.
void apply_pin(const PinRule& rule, BufferInfo* b, const std::vector<Pool>& pools);

}  // namespace kiln::planner
