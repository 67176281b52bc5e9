// Parsing the pool flags (--with-workspace-buffer, --with-parameter-buffer) and
// --pin rules. Errors name the flag and the field.
#pragma once

#include <string>
#include <vector>

#include "planner/planner.h"

namespace kiln::planner {

// "name=sram;size=64K;align=16;section=.bss.sram;target=c" -> Pool. `flag` is the
// flag's name for messages. size accepts bytes or K/KiB/M/MiB suffixes. Throws
// PlanError naming the flag and the bad field.
Pool parse_pool_spec(const std::string& spec, PoolKind kind, const std::string& flag);

// Throws PlanError when two pools of one kind share a name.
void check_pool_names(const std::vector<Pool>& pools);

struct PinRule {
  std::string pattern;     // glob: '*' any run, '?' any one character
  std::vector<int> pools;  // indices into the pool list, in priority order
};

// "conv1*=dtcm,sram" -> PinRule. Pool names must exist (of either kind).
PinRule parse_pin(const std::string& spec, const std::vector<Pool>& pools);
bool glob_match(const std::string& pattern, const std::string& text);
// Restricts `b`'s candidates to the rule's pools of the buffer's own pool kind
// when its name matches; a rule naming no pool of that kind leaves it untouched.
void apply_pin(const PinRule& rule, BufferInfo* b, const std::vector<Pool>& pools);

}  // namespace kiln::planner
