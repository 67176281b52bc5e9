// The memory flags' syntax: --with-workspace-buffer / --with-parameter-buffer
// ("name=sram;size=64K;align=16;section=.bss.sram;target=c") and --pin
// ("PATTERN=POOL[,POOL...]"). Parsed here, in the CLI; the driver and the planner
// receive planner::Pool and planner::PinRequest values and know no flag syntax.
// Errors name the flag and the bad field (planner::PlanError, as the planner's own).
#pragma once

#include <string>
#include <vector>

#include "planner/planner.h"
#include "planner/pool_spec.h"

namespace kiln {

// "name=sram;size=64K;align=16;section=.bss.sram;target=c" -> Pool. `flag` is the
// flag's name for messages. size accepts bytes or K/KiB/M/MiB suffixes.
planner::Pool parse_pool_flag(const std::string& spec, planner::PoolKind kind, const std::string& flag);

// Appends `pool` to `pools` (the pools of the flags seen so far); throws when a pool of
// the same kind has its name already, or the name is 'internal' (Kiln's own pools).
void add_user_pool(std::vector<planner::Pool>* pools, planner::Pool pool);

// "conv1*=dtcm,sram" -> PinRequest (pool names are resolved by the planner).
planner::PinRequest parse_pin_flag(const std::string& spec);

}  // namespace kiln
