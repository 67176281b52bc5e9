#include "verify/profile.h"

#include <algorithm>
#include <cstdio>

#include "ir/graph.h"

namespace kiln {

namespace {

std::string shape_text(const std::vector<int64_t>& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? "," : "") + std::to_string(s[i]);
  return r + "]";
}

std::string percent(uint64_t part, uint64_t whole) {
  char b[16];
  std::snprintf(b, sizeof b, "%.1f%%", whole ? 100.0 * double(part) / double(whole) : 0.0);
  return b;
}

std::string pad(std::string s, size_t width, bool right) {
  if (s.size() >= width) return s;
  return right ? std::string(width - s.size(), ' ') + s : s + std::string(width - s.size(), ' ');
}

uint64_t op_sum(const CaseResult& r) {
  uint64_t n = 0;
  for (uint64_t x : r.op_instructions) n += x;
  return n;
}

}  // namespace

std::string profile_table(const CompiledModule& m, const CaseResult& r, bool counted) {
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"step", "operator", "op type", "output shape", "MACs"});
  if (counted) rows.back().insert(rows.back().end(), {"instructions", "share"});
  for (size_t i = 0; i < m.ops.size(); ++i) {
    const auto& op = m.ops[i];
    rows.push_back({std::to_string(i), op.label, op.op_type, op.output_shape.empty() ? "-" : shape_text(op.output_shape),
                    op.macs ? std::to_string(op.macs) : "-"});
    if (counted) {
      uint64_t n = i < r.op_instructions.size() ? r.op_instructions[i] : 0;
      rows.back().insert(rows.back().end(), {std::to_string(n), percent(n, r.instructions)});
    }
  }
  if (counted) {
    // What is outside every operator call: pointer checks, kiln_execute, the hooks.
    uint64_t ops = op_sum(r), other = r.instructions > ops ? r.instructions - ops : 0;
    rows.push_back({"", "outside operator calls", "", "", "", std::to_string(other), percent(other, r.instructions)});
    rows.push_back({"", "total", "", "", "", std::to_string(r.instructions), "100.0%"});
  }
  std::vector<size_t> width(rows[0].size(), 0);
  for (const auto& row : rows)
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  std::string out;
  for (const auto& row : rows) {
    std::string line = "   ";
    for (size_t c = 0; c < row.size(); ++c) {
      bool numeric = c == 0 || c >= 4;
      line += " " + pad(row[c], width[c], numeric);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

nlohmann::json profile_json(const CompiledModule& m, const CaseResult& r, bool counted) {
  nlohmann::json ops = nlohmann::json::array();
  for (size_t i = 0; i < m.ops.size(); ++i) {
    const auto& op = m.ops[i];
    nlohmann::json j = {{"step", i},
                        {"name", op.label},
                        {"op_type", op.op_type},
                        {"output_shape", op.output_shape},
                        {"macs", op.macs}};
    if (counted) {
      uint64_t n = i < r.op_instructions.size() ? r.op_instructions[i] : 0;
      j["instructions"] = n;
      j["share"] = r.instructions ? double(n) / double(r.instructions) : 0.0;
    }
    ops.push_back(j);
  }
  nlohmann::json p = {{"operators", ops}};
  if (counted) {
    uint64_t sum = op_sum(r);
    p["operators_instructions"] = sum;
    p["other_instructions"] = r.instructions > sum ? r.instructions - sum : 0;
  }
  return p;
}

}  // namespace kiln
