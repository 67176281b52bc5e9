#include "planner/csv_instance.h"

#include <fstream>
#include <sstream>
#include <vector>

namespace kiln::planner {

namespace {

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream ss(line);
  std::string c;
  while (std::getline(ss, c, ',')) {
    size_t a = c.find_first_not_of(" \t\r"), b = c.find_last_not_of(" \t\r");
    cells.push_back(a == std::string::npos ? "" : c.substr(a, b - a + 1));
  }
  return cells;
}

}  // namespace

PlanProblem load_csv_instance(const std::string& path, std::optional<uint64_t> capacity) {
  std::ifstream in(path);
  if (!in) throw PlanError("cannot read '" + path + "'");
  std::string line;
  if (!std::getline(in, line)) throw PlanError(path + ": empty file (expected a header id,lower,upper,size)");
  auto header = split(line);
  int col_id = -1, col_lo = -1, col_hi = -1, col_size = -1, col_align = -1;
  for (size_t i = 0; i < header.size(); ++i) {
    if (header[i] == "id") col_id = int(i);
    else if (header[i] == "lower") col_lo = int(i);
    else if (header[i] == "upper") col_hi = int(i);
    else if (header[i] == "size") col_size = int(i);
    else if (header[i] == "alignment") col_align = int(i);
  }
  if (col_lo < 0 || col_hi < 0 || col_size < 0)
    throw PlanError(path + ": the header must name the columns lower, upper and size (and usually id)");
  PlanProblem p;
  Pool pool;
  pool.name = "csv";
  pool.capacity = capacity;
  pool.alignment = 4096;
  p.pools.push_back(pool);
  int lineno = 1;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    auto cells = split(line);
    auto num = [&](int col, const char* what) -> int64_t {
      if (col >= int(cells.size())) throw PlanError(path + ":" + std::to_string(lineno) + ": missing " + what);
      const std::string& v = cells[size_t(col)];
      size_t used = 0;
      int64_t x = 0;
      try {
        x = std::stoll(v, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used == 0 || used != v.size() || x < 0)
        throw PlanError(path + ":" + std::to_string(lineno) + ": " + what + " '" + v + "' is not a non-negative integer");
      return x;
    };
    BufferInfo b;
    b.id = int(p.buffers.size());
    b.name = col_id >= 0 && col_id < int(cells.size()) ? cells[size_t(col_id)] : std::to_string(b.id);
    b.first = num(col_lo, "lower");
    b.last = num(col_hi, "upper");
    b.size_bytes = uint64_t(num(col_size, "size"));
    if (col_align >= 0) {
      int64_t a = num(col_align, "alignment");
      if (a <= 0 || (a & (a - 1)) != 0 || a > 4096)
        throw PlanError(path + ":" + std::to_string(lineno) + ": alignment must be a power of two up to 4096");
      b.alignment = uint32_t(a);
    }
    if (b.last < b.first)
      throw PlanError(path + ":" + std::to_string(lineno) + ": upper " + std::to_string(b.last) + " is before lower " +
                      std::to_string(b.first));
    b.pool_candidates = {0};
    p.buffers.push_back(std::move(b));
  }
  return p;
}

}  // namespace kiln::planner
