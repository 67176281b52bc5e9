#include "module_oracle.h"

#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <vector>

#include "emit/c_names.h"
#include "ir/constant.h"
#include "util/paths.h"
#include "util/process.h"
#include "verify/board.h"
#include "verify/verify.h"

namespace kiln::fuzz {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void breach(const std::string& what) { throw std::logic_error("fuzz oracle: " + what); }

bool is_c_file(const std::string& name) {
  return name.size() > 2 && (name.compare(name.size() - 2, 2, ".c") == 0 || name.compare(name.size() - 2, 2, ".h") == 0);
}

// "#define NAME ..." -> NAME (also "#  define"); empty for any other line.
std::string directive_name(const std::string& line, const char* directive) {
  size_t at = line.find_first_not_of(" \t");
  if (at == std::string::npos || line[at] != '#') return {};
  at = line.find_first_not_of(" \t", at + 1);
  const size_t len = std::strlen(directive);
  if (at == std::string::npos || line.compare(at, len, directive) != 0) return {};
  at = line.find_first_not_of(" \t", at + len);
  if (at == std::string::npos) return {};
  return line.substr(at, line.find_first_of(" \t(", at) - at);
}

// The class of one numeric literal (a C pp-number): 'Z' zero, 'B' a two-digit hex
// byte (the parameter arrays), 'N' an integer of int32's range, 'L' one past it
// (an int64 field's; in an int32 field it would overflow, so a value moving from
// N to L is new structure), 'F' an ordinary float, 'U' unusual: what may break
// compilation or draw a warning wherever it is (an integer of 2^63 or more, "so
// large that it is unsigned" or too large for any type; a float outside the
// normal range of its type, whose conversion may overflow or lose precision). 'W' is a pp-number that is no
// literal: a version "0.1.0" or a commit "7c4119f" in a comment.
char literal_class(const std::string& tok) {
  std::string t = tok;
  const bool hex = t.size() > 1 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X');
  const bool is_float = !hex && t.find_first_of(".eE") != std::string::npos;
  if (is_float) {
    const bool single = t.back() == 'f' || t.back() == 'F';
    while (!t.empty() && std::isalpha(static_cast<unsigned char>(t.back()))) t.pop_back();
    char* end = nullptr;
    const double v = std::strtod(t.c_str(), &end);
    if (end == t.c_str() || *end != '\0') return 'W';
    if (v == 0) return 'Z';
    const double a = std::fabs(v), lo = single ? FLT_MIN : DBL_MIN, hi = single ? FLT_MAX : DBL_MAX;
    return std::isfinite(v) && a >= lo && a <= hi ? 'F' : 'U';
  }
  while (!t.empty() && (t.back() == 'u' || t.back() == 'U' || t.back() == 'l' || t.back() == 'L')) t.pop_back();
  const std::string digits = hex ? t.substr(2) : t;
  for (char c : digits)
    if (!(hex ? std::isxdigit(static_cast<unsigned char>(c)) : std::isdigit(static_cast<unsigned char>(c)))) return 'W';
  if (digits.empty()) return 'W';
  if (hex && digits.size() <= 2) return 'B';
  errno = 0;
  const unsigned long long v = std::strtoull(digits.c_str(), nullptr, hex ? 16 : 10);
  if (errno == ERANGE || v > 0x7fffffffffffffffull) return 'U';
  if (v == 0) return 'Z';
  return v <= 0x7fffffffull ? 'N' : 'L';
}

bool is_word(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// One file's structure (module_oracle.h): literals by class, whitespace dropped
// where it separates no two words, runs "X,X," of one class folded to "X,".
void append_structure(const std::string& text, std::string& out, bool* unusual) {
  const size_t n = text.size();
  for (size_t i = 0; i < n;) {
    const char c = text[i];
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '.' && i + 1 < n && std::isdigit(static_cast<unsigned char>(text[i + 1])))) {
      size_t j = i + 1;
      // A pp-number: word characters, '.', and a sign after e, E, p or P.
      while (j < n && (is_word(text[j]) || text[j] == '.' ||
                       ((text[j] == '+' || text[j] == '-') && std::strchr("eEpP", text[j - 1]) != nullptr)))
        ++j;
      const char k = literal_class(text.substr(i, j - i));
      if (k == 'U') *unusual = true;
      out += k;
      i = j;
    } else if (is_word(c)) {
      size_t j = i;
      while (j < n && is_word(text[j])) ++j;
      out.append(text, i, j - i);
      i = j;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      while (i < n && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
      if (!out.empty() && is_word(out.back()) && i < n && (is_word(text[i]) || text[i] == '.')) out += ' ';
    } else {
      out += c;
      ++i;
      // "B,B," -> "B,": an array's length is not structure.
      const size_t m = out.size();
      if (c == ',' && m >= 4 && out[m - 2] == out[m - 4] && out[m - 3] == ',' && std::strchr("ZBNLFUW", out[m - 2]) &&
          (m == 4 || !is_word(out[m - 5])))
        out.resize(m - 2);
    }
  }
}

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

// Deterministic inputs: floats in [-1.25, 1.25], integers and booleans 0 and 1 (an
// index, a count or a shape read at run time stays in range).
ConstantPtr deterministic_input(const CompiledTensor& t) {
  int64_t count = 1;
  for (int64_t d : t.shape) count *= d;
  std::vector<double> v(size_t(std::max<int64_t>(count, 0)));
  const bool fp = t.dtype == DType::Float32 || t.dtype == DType::Float64 || t.dtype == DType::Float16 ||
                  t.dtype == DType::BFloat16;
  for (size_t i = 0; i < v.size(); ++i) v[i] = fp ? double(int64_t(i * 7 % 11) - 5) / 4.0 : double(i % 2);
  return Constant::from_doubles(t.dtype, t.shape, v);
}

void write_text_file(const fs::path& p, const std::string& s) {
  std::ofstream out(p, std::ios::binary);
  out << s;
  if (!out) throw std::runtime_error("fuzz oracle: cannot write " + p.string());
}

// The module's files under `dir`, and a CompiledModule that names them there.
CompiledModule materialize(const CompiledModule& m, const fs::path& dir) {
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir);
  for (const auto& [name, text] : m.files) write_text_file(dir / name, text);
  CompiledModule at = m;
  at.dir = dir;
  at.sources.clear();
  for (const auto& s : m.sources) at.sources.push_back(dir / s.filename());
  at.include_dirs = {dir, kiln_home() / "crt" / "include"};
  return at;
}

// Compile-only, for a module too large to run: every source with the host board's
// compiler and flags, -std=c99 -Wall -Wextra -Werror.
void compile_sources(const CompiledModule& m, double timeout_s) {
  const Board board = load_board("host");
  for (const auto& src : m.sources) {
    std::vector<std::string> cmd = {board.cc};
    cmd.insert(cmd.end(), board.cflags.begin(), board.cflags.end());
    cmd.insert(cmd.end(), {"-std=c99", "-Wall", "-Wextra", "-Werror"});
    for (const auto& i : m.include_dirs) cmd.push_back("-I" + i.string());
    cmd.insert(cmd.end(), {"-c", src.string(), "-o", src.string() + ".o"});
    const ProcessResult r = run_process(cmd, timeout_s);
    if (r.timed_out) throw std::runtime_error("fuzz oracle: the C compiler timed out on " + src.string());
    if (r.exit_code != 0) breach("the generated " + src.filename().string() + " does not compile:\n" + r.output);
  }
}

}  // namespace

void check_module_text(const ModuleFiles& files) {
  std::map<std::string, bool> defined;  // macro -> defined unconditionally somewhere
  for (const auto& [name, text] : files) {
    size_t line_no = 1;
    for (unsigned char c : text) {
      if (c == '\n') ++line_no;
      else if (c != '\t' && (c < 0x20 || c >= 0x7f))
        breach("byte " + std::to_string(c) + " (not printable ASCII) in line " + std::to_string(line_no) + " of " + name);
    }
    if (!is_c_file(name)) continue;
    std::istringstream in(text);
    std::string line, ifndef;
    while (std::getline(in, line)) {
      const std::string macro = directive_name(line, "define");
      if (!macro.empty()) {
        if (!is_c_identifier(macro) || macro.compare(0, 5, "KILN_") != 0)
          breach("macro '" + macro + "' in " + name + " is not a KILN_ identifier");
        // A default under "#ifndef NAME" (an include guard, KILN_POISON_DEAD) may be
        // met again; an unconditional definition must be the only one.
        const bool guarded = macro == ifndef;
        auto it = defined.find(macro);
        if (it != defined.end() && (!guarded || it->second)) breach("macro " + macro + " is defined twice (" + name + ")");
        defined[macro] = defined[macro] || !guarded;
      }
      ifndef = directive_name(line, "ifndef");
    }
  }
}

std::string module_structure(const ModuleFiles& files, bool* unusual) {
  std::string out;
  for (const auto& [name, text] : files) {
    out += "@" + name + "\n";
    append_structure(text, out, unusual);
  }
  return out;
}

bool small_enough_to_run(const CompiledModule& m) {
  uint64_t bytes = 0;
  for (const auto& p : m.pools) bytes += p.size_bytes;
  for (const auto& t : m.inputs) bytes += t.size_bytes;
  for (const auto& t : m.outputs) bytes += t.size_bytes;
  return m.ops.size() <= 64 && bytes <= 256 * 1024;
}

namespace {

OracleAction compile_and_run(const CompiledModule& m, const OracleOptions& o);

}  // namespace

OracleAction check_accepted_module(const CompiledModule& m, const OracleOptions& options) {
  if (m.files.empty()) breach("an accepted module without its files' text");
  check_module_text(m.files);
  if (!options.compile) return OracleAction::TextOnly;
  // Absolute: the runner's test data #includes the module's metadata.h by its path.
  OracleOptions o = options;
  o.work_dir = fs::absolute(o.work_dir);
  if (!o.crt_cache_dir.empty()) o.crt_cache_dir = fs::absolute(o.crt_cache_dir);
  try {
    return compile_and_run(m, o);
  } catch (const std::exception& e) {
    // libFuzzer's fork mode drops a crashed job's output: the reason is kept here.
    std::ofstream(o.work_dir / "breaches.log", std::ios::app) << "pid " << ::getpid() << ": " << e.what() << "\n";
    throw;
  }
}

namespace {

OracleAction compile_and_run(const CompiledModule& m, const OracleOptions& o) {
  bool unusual = false;
  const std::string structure = module_structure(m.files, &unusual);
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(fnv1a(structure)));
  const fs::path seen = o.work_dir / "seen" / hash;
  std::error_code ec;
  if (!unusual && fs::exists(seen, ec)) return OracleAction::SeenBefore;

  const auto start = std::chrono::steady_clock::now();
  const fs::path scratch = o.work_dir / ("scratch-" + std::to_string(::getpid()));
  const CompiledModule at = materialize(m, scratch / "module");
  OracleAction action = OracleAction::Compiled;
  if (small_enough_to_run(m)) {
    VerifyCase vc;
    vc.module = &at;
    vc.name = "fuzz";
    for (const auto& t : m.inputs) vc.data.inputs.push_back(deterministic_input(t));
    // The outputs are not compared (no reference): only the run itself is checked.
    for (const auto& t : m.outputs) vc.data.expected.push_back(deterministic_input(t));
    VerifyOptions vo;
    vo.board = "host";
    vo.work_dir = scratch / "verify";
    vo.crt_cache_dir = o.crt_cache_dir.empty() ? o.work_dir / "crt-cache" : o.crt_cache_dir;
    vo.timeout_s = o.timeout_s;
    vo.sanitize = true;
    vo.poison_dead = true;
    const VerifyReport r = run_verify_cases({vc}, vo);
    if (r.failure.find("timed out") != std::string::npos) {
      // A slow run (a long loop under ASan) is no breach: noted, not aborted.
      std::ofstream(o.work_dir / "slow_runs.log", std::ios::app) << hash << " " << r.failure << "\n";
    } else if (!r.failure.empty()) {
      breach(r.failure + "\n" + r.log);
    }
    action = OracleAction::CompiledAndRan;
  } else {
    compile_sources(at, o.timeout_s);
  }
  fs::create_directories(seen.parent_path());
  std::ofstream(seen).put('\n');
  fs::remove_all(scratch, ec);
  // One line per compiled module (run_fuzz.sh's report counts them and their time).
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::ofstream(o.work_dir / "oracle.log", std::ios::app)
      << hash << (action == OracleAction::CompiledAndRan ? " ran " : " compiled ") << secs << (unusual ? " unusual" : "") << "\n";
  return action;
}

}  // namespace

}  // namespace kiln::fuzz
