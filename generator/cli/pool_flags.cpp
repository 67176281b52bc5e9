#include "cli/pool_flags.h"
#include "util/quoted.h"

#include <cctype>
#include <set>
#include <sstream>

namespace kiln {

using planner::PlanError;
using planner::Pool;
using planner::PoolKind;

namespace {

std::string trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

uint64_t parse_bytes(const std::string& v, const std::string& where) {
  size_t i = 0;
  while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i]))) ++i;
  if (i == 0 || i > 15) throw PlanError(where + ": " + in_quotes(v) + " is not a byte count (e.g. 65536, 64K, 1M)");
  uint64_t n = std::stoull(v.substr(0, i));
  std::string unit = v.substr(i);
  if (unit.empty() || unit == "B") return n;
  if (unit == "K" || unit == "k" || unit == "KB" || unit == "KiB") return n * 1024;
  if (unit == "M" || unit == "MB" || unit == "MiB") return n * 1024 * 1024;
  throw PlanError(where + ": unknown size unit " + in_quotes(unit) + " (use K, KiB, M or MiB)");
}

}  // namespace

Pool parse_pool_flag(const std::string& spec, PoolKind kind, const std::string& flag) {
  Pool p;
  p.kind = kind;
  p.is_user = true;
  const std::string where = flag + " \"" + spec + "\"";
  std::stringstream ss(spec);
  std::string field;
  std::set<std::string> seen;
  while (std::getline(ss, field, ';')) {
    field = trim(field);
    if (field.empty()) continue;
    auto eq = field.find('=');
    if (eq == std::string::npos) throw PlanError(where + ": field " + in_quotes(field) + " is not key=value");
    std::string k = trim(field.substr(0, eq)), v = trim(field.substr(eq + 1));
    if (!seen.insert(k).second) throw PlanError(where + ": " + in_quotes(k) + " given twice");
    if (k == "name") {
      if (v.empty()) throw PlanError(where + ": empty name");
      for (unsigned char c : v)
        if (!std::isalnum(c) && c != '_' && c != '-' && c != '.')
          throw PlanError(where + ": name " + in_quotes(v) + " may only hold letters, digits, '_', '-' and '.'");
      p.name = v;
    } else if (k == "size") {
      p.capacity = parse_bytes(v, where);
    } else if (k == "align" || k == "alignment") {
      uint64_t a = parse_bytes(v, where);
      if (a == 0 || (a & (a - 1)) != 0 || a > 4096) throw PlanError(where + ": align=" + v + " is not a power of two up to 4096");
      p.alignment = uint32_t(a);
    } else if (k == "section") {
      if (v.empty() || v.find('"') != std::string::npos || v.find('\\') != std::string::npos)
        throw PlanError(where + ": section " + in_quotes(v) + " is not a valid section name");
      p.section = v;
    } else if (k == "target") {
      p.target = v;
    } else {
      throw PlanError(where + ": unknown field " + in_quotes(k) + " (name, size, align, section, target)");
    }
  }
  if (p.name.empty()) throw PlanError(where + ": missing name=");
  return p;
}

void add_user_pool(std::vector<Pool>* pools, Pool pool) {
  const std::string flag = pool.kind == PoolKind::Workspace ? "--with-workspace-buffer" : "--with-parameter-buffer";
  if (pool.name == "internal") throw PlanError("pool name 'internal' is reserved for Kiln's own pools");
  for (const Pool& p : *pools)
    if (p.kind == pool.kind && p.name == pool.name)
      throw PlanError(flag + ": pool name " + in_quotes(pool.name) + " is used twice");
  pools->push_back(std::move(pool));
}

planner::PinRequest parse_pin_flag(const std::string& spec) {
  auto eq = spec.rfind('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
    throw PlanError("--pin \"" + spec + "\": expected PATTERN=POOL[,POOL...]");
  planner::PinRequest r;
  r.pattern = spec.substr(0, eq);
  r.origin = "--pin \"" + spec + "\"";
  std::stringstream ss(spec.substr(eq + 1));
  std::string name;
  while (std::getline(ss, name, ',')) r.pools.push_back(trim(name));
  return r;
}

}  // namespace kiln
