// Reports of a plan: JSON (--report), an SVG memory map (--memory-map) and the
// one-screen summary `kiln compile` prints.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "planner/planner.h"

namespace kiln::planner {

// `origins[i]`: what produced buffer i ("Conv 'conv1'"); may be empty.
nlohmann::json plan_to_json(const PlanProblem& problem, const Plan& plan, const std::vector<std::string>& origins);
// x = schedule step, y = address; one labelled rectangle per buffer; one panel per pool.
// `caption`: an extra line under the title (e.g. the schedule's peak before and after).
std::string plan_to_svg(const PlanProblem& problem, const Plan& plan, const std::vector<std::string>& origins,
                        const std::string& caption = "");
std::string plan_summary_text(const PlanProblem& problem, const Plan& plan);

}  // namespace kiln::planner
