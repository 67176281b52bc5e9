#include "planner/plan_report.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace kiln::planner {

namespace {

const char* kind_name(BufferKind k) {
  switch (k) {
    case BufferKind::Activation: return "activation";
    case BufferKind::Scratch: return "scratch";
    case BufferKind::Input: return "input";
    case BufferKind::Output: return "output";
    case BufferKind::Constant: return "constant";
    case BufferKind::State: return "state";
  }
  return "?";
}

std::string xml_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '<') o += "&lt;";
    else if (c == '>') o += "&gt;";
    else if (c == '&') o += "&amp;";
    else if (c == '"') o += "&quot;";
    else if (c == '\'') o += "&apos;";
    else o += c;
  }
  return o;
}

}  // namespace

nlohmann::json plan_to_json(const PlanProblem& problem, const Plan& plan, const std::vector<std::string>& origins) {
  nlohmann::json j;
  j["algorithm"] = plan.algorithm;
  j["proven_optimal"] = plan.proven_optimal;
  j["pools"] = nlohmann::json::array();
  for (size_t p = 0; p < problem.pools.size(); ++p) {
    const auto& pool = problem.pools[p];
    const auto& u = plan.pools[p];
    nlohmann::json pj = {{"name", pool.name},
                         {"kind", pool.kind == PoolKind::Workspace ? "workspace" : "parameter"},
                         {"user", pool.is_user},
                         {"size_bytes", u.size_bytes},
                         {"lower_bound_bytes", u.lower_bound},
                         {"alignment", pool.alignment},
                         {"fragmentation", u.size_bytes ? 1.0 - double(u.lower_bound) / double(u.size_bytes) : 0.0}};
    if (pool.capacity) pj["capacity_bytes"] = *pool.capacity;
    if (!pool.section.empty()) pj["section"] = pool.section;
    j["pools"].push_back(pj);
  }
  j["buffers"] = nlohmann::json::array();
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    const auto& b = problem.buffers[i];
    const auto& pl = plan.placements[i];
    j["buffers"].push_back({{"name", b.name},
                            {"kind", kind_name(b.kind)},
                            {"pool", pl.pool >= 0 ? problem.pools[size_t(pl.pool)].name : ""},
                            {"offset", pl.offset},
                            {"size_bytes", b.size_bytes},
                            {"alignment", b.alignment},
                            {"live", {b.first, b.last}},
                            {"producer", i < origins.size() ? origins[i] : ""}});
  }
  return j;
}

std::string plan_to_svg(const PlanProblem& problem, const Plan& plan, const std::vector<std::string>& origins,
                        const std::string& caption) {
  const double W = 960, H = 360, left = 90, top = caption.empty() ? 40 : 58, gap = 60;
  int64_t steps = 1;
  for (const auto& b : problem.buffers) steps = std::max(steps, b.last);
  std::vector<size_t> shown;
  for (size_t p = 0; p < problem.pools.size(); ++p)
    if (plan.pools[p].size_bytes > 0) shown.push_back(p);
  double total_h = top + double(shown.size()) * (H + gap) + 20;
  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W + left + 20 << "\" height=\"" << total_h
    << "\" font-family=\"monospace\" font-size=\"11\">\n";
  o << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  o << "<text x=\"" << left << "\" y=\"20\" font-size=\"14\">Kiln memory plan (" << xml_escape(plan.algorithm)
    << "): x = schedule step, y = address</text>\n";
  if (!caption.empty())
    o << "<text x=\"" << left << "\" y=\"38\" font-size=\"12\">" << xml_escape(caption) << "</text>\n";
  static const char* colors[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#9c755f"};
  double y0 = top;
  for (size_t p : shown) {
    const auto& u = plan.pools[p];
    double scale = H / double(std::max<uint64_t>(u.size_bytes, 1));
    double xs = W / double(steps);
    o << "<text x=\"" << left << "\" y=\"" << y0 + 14 << "\" font-size=\"13\">pool '" << xml_escape(problem.pools[p].name)
      << "': " << u.size_bytes << " bytes (lower bound " << u.lower_bound << ")</text>\n";
    double py = y0 + 20;
    o << "<rect x=\"" << left << "\" y=\"" << py << "\" width=\"" << W << "\" height=\"" << H
      << "\" fill=\"none\" stroke=\"#999\"/>\n";
    o << "<text x=\"4\" y=\"" << py + 10 << "\">" << u.size_bytes << "</text>\n";
    o << "<text x=\"4\" y=\"" << py + H << "\">0</text>\n";
    for (size_t i = 0; i < problem.buffers.size(); ++i) {
      const auto& b = problem.buffers[i];
      const auto& pl = plan.placements[i];
      if (pl.pool != int(p) || b.size_bytes == 0) continue;
      double x = left + double(b.first) * xs, w = std::max(1.0, double(b.last - b.first) * xs);
      double h = std::max(1.0, double(b.size_bytes) * scale);
      double y = py + H - double(pl.offset + b.size_bytes) * scale;
      std::string title = b.name + " (" + std::to_string(b.size_bytes) + " B @ " + std::to_string(pl.offset) +
                          ", steps [" + std::to_string(b.first) + "," + std::to_string(b.last) + "))" +
                          (i < origins.size() && !origins[i].empty() ? " from " + origins[i] : "");
      o << "<g><title>" << xml_escape(title) << "</title><rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << w
        << "\" height=\"" << h << "\" fill=\"" << colors[i % 8] << "\" fill-opacity=\"0.75\" stroke=\"#333\" stroke-width=\"0.5\"/>";
      if (h >= 12 && w >= 40)
        o << "<text x=\"" << x + 2 << "\" y=\"" << y + 11 << "\" fill=\"white\">" << xml_escape(b.name.substr(0, size_t(w / 7)))
          << "</text>";
      o << "</g>\n";
    }
    y0 += H + gap;
  }
  o << "</svg>\n";
  return o.str();
}

std::string plan_summary_text(const PlanProblem& problem, const Plan& plan) {
  std::ostringstream o;
  o << "memory plan (" << plan.algorithm << (plan.proven_optimal ? ", optimal" : "") << "):\n";
  char line[256];
  std::snprintf(line, sizeof line, "  %-10s %-9s %-9s %12s %12s %8s\n", "pool", "kind", "owner", "bytes", "lower bound",
                "buffers");
  o << line;
  for (size_t p = 0; p < problem.pools.size(); ++p) {
    int n = 0;
    for (const auto& pl : plan.placements) n += pl.pool == int(p);
    const auto& pool = problem.pools[p];
    std::snprintf(line, sizeof line, "  %-10s %-9s %-9s %12llu %12llu %8d\n", pool.name.c_str(),
                  pool.kind == PoolKind::Workspace ? "workspace" : "parameter", pool.is_user ? "user" : "internal",
                  static_cast<unsigned long long>(plan.pools[p].size_bytes),
                  static_cast<unsigned long long>(plan.pools[p].lower_bound), n);
    o << line;
  }
  return o.str();
}

}  // namespace kiln::planner
