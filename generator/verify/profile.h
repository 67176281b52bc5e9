// `kiln verify --profile`: one row per operator call in execution order (name,
// op type, output shape, MACs, instructions, share of the inference), as a table
// for people and as JSON for the report and `make bench`.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "emit/compiled_module.h"
#include "verify/verify.h"

namespace kiln {

// The table of one case; `counted` false (a board without an instruction
// counter) leaves the instruction columns out.
std::string profile_table(const CompiledModule& module, const CaseResult& result, bool counted);

// {"operators": [{"step", "name", "op_type", "output_shape", "macs",
// "instructions", "share"}...], "operators_instructions", "other_instructions"}.
nlohmann::json profile_json(const CompiledModule& module, const CaseResult& result, bool counted);

}  // namespace kiln
