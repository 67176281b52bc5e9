#include "worker.h"

#include <onnx/onnx_pb.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>

#include "driver/compile.h"
#include "onnx/tensor_proto.h"
#include "onnx/sequence_test_data.h"
#include "ir/graph.h"
#include "util/error.h"
#include "verify/verify.h"

namespace kiln::conformance {

namespace fs = std::filesystem;

nlohmann::json job_to_json(const Job& job) {
  nlohmann::json tests = nlohmann::json::array();
  for (const auto& t : job.tests) {
    nlohmann::json sets = nlohmann::json::array();
    for (const auto& d : t.data_sets) sets.push_back(d.string());
    tests.push_back({{"id", t.id}, {"dir", t.dir.string()}, {"data_sets", sets}, {"module", t.module}});
  }
  return {{"board", job.board},
          {"run_timeout_s", job.run_timeout_s},
          {"work_dir", job.work_dir.string()},
          {"crt_cache_dir", job.crt_cache_dir.string()},
          {"keep", job.keep},
          {"tests", tests}};
}

Job job_from_json(const nlohmann::json& j) {
  Job job;
  job.board = j.at("board").get<std::string>();
  job.run_timeout_s = j.at("run_timeout_s").get<double>();
  job.work_dir = j.at("work_dir").get<std::string>();
  job.crt_cache_dir = j.at("crt_cache_dir").get<std::string>();
  job.keep = j.value("keep", false);
  for (const auto& t : j.at("tests")) {
    JobTest jt;
    jt.id = t.at("id").get<std::string>();
    jt.dir = t.at("dir").get<std::string>();
    for (const auto& d : t.at("data_sets")) jt.data_sets.push_back(d.get<std::string>());
    jt.module = t.at("module").get<std::string>();
    job.tests.push_back(std::move(jt));
  }
  return job;
}

namespace {

using Clock = std::chrono::steady_clock;

// A test's compiled module(s) and its verify cases. Usually one module; a model
// with dynamic input dimensions gets one module per distinct set of input
// shapes in its data sets (the test data fixes the shapes, as a user would with
// --input-shape).
struct Prepared {
  const JobTest* test = nullptr;
  std::vector<std::unique_ptr<CompiledModule>> modules;
  std::vector<VerifyCase> cases;
  std::vector<size_t> case_data_set;  // which data set each case is
  bool done = false;                  // outcome already decided (did not compile, ...)
  Outcome outcome;
  Clock::time_point start;
};

// Graph inputs (not initializers) whose declared shape is not fully static, by
// position among the graph inputs the test data feeds.
std::vector<std::pair<size_t, std::string>> dynamic_inputs(const fs::path& model_path) {
  std::vector<std::pair<size_t, std::string>> out;
  std::ifstream in(model_path, std::ios::binary);
  onnx::ModelProto model;
  if (!in || !model.ParseFromIstream(&in)) return out;
  std::set<std::string> inits;
  for (const auto& i : model.graph().initializer()) inits.insert(i.name());
  size_t k = 0;
  for (const auto& vi : model.graph().input()) {
    if (inits.count(vi.name())) continue;
    bool dynamic = false;
    if (vi.type().has_tensor_type()) {
      const auto& tt = vi.type().tensor_type();
      if (!tt.has_shape()) dynamic = true;
      for (const auto& d : tt.shape().dim()) dynamic |= !d.has_dim_value();
    }
    if (dynamic) out.emplace_back(k, vi.name());
    ++k;
  }
  return out;
}

std::string shapes_key(const std::map<std::string, Shape>& m) {
  std::string s;
  for (const auto& [name, shape] : m) s += name + "=" + shape_str(shape) + ";";
  return s;
}

// The first line of a compiler/linker log that says what went wrong, without
// the work folder's path (so that the reason is the same on every machine).
std::string first_error_line(const std::string& log) {
  std::istringstream in(log);
  std::string line, fallback;
  while (std::getline(in, line)) {
    bool err = line.find("error:") != std::string::npos || line.find("undefined reference") != std::string::npos;
    if (!err) continue;
    size_t colon = line.find(": ");
    if (colon != std::string::npos) {
      size_t slash = line.rfind('/', colon);
      if (slash != std::string::npos) line = line.substr(slash + 1);
    }
    return line;
  }
  return fallback;
}

// The sanitizer's (or the crash's) one line from the run's output.
std::string crash_line(const std::string& log, const std::string& failure) {
  std::istringstream in(log);
  std::string line, asan, summary;
  while (std::getline(in, line)) {
    if (line.find("runtime error:") != std::string::npos) {
      size_t colon = line.find(": runtime error:");
      size_t slash = line.rfind('/', colon);
      return slash != std::string::npos ? line.substr(slash + 1) : line;
    }
    if (asan.empty() && line.find("ERROR: AddressSanitizer") != std::string::npos) asan = line;
    if (summary.empty() && line.find("SUMMARY: ") != std::string::npos) summary = line;
  }
  if (!summary.empty()) {
    size_t slash = summary.rfind('/');
    size_t in_pos = summary.find(" in ");
    // "SUMMARY: AddressSanitizer: heap-buffer-overflow /path/x.c:12 in f": drop the path.
    if (slash != std::string::npos && in_pos != std::string::npos && slash < in_pos) {
      size_t sp = summary.rfind(' ', slash);
      summary = summary.substr(0, sp + 1) + summary.substr(slash + 1);
    }
    return summary;
  }
  if (!asan.empty()) return asan.substr(asan.find("ERROR: "));
  return failure;
}

Outcome make(Category c, const std::string& reason, const std::string& kind = "") {
  Outcome o;
  o.category = c;
  o.reason = one_line(reason);
  o.kind = kind;
  return o;
}

void prepare(const Job& job, const JobTest& t, Prepared* p) {
  p->test = &t;
  p->start = Clock::now();
  if (t.data_sets.empty()) {
    p->done = true;
    p->outcome = make(Category::Unsupported, "the test has no test_data_set_* folder", "other");
    return;
  }
  // Group the data sets by the shapes they give the dynamic inputs.
  auto dyn = dynamic_inputs(t.dir / "model.onnx");
  std::vector<std::map<std::string, Shape>> groups;
  std::vector<std::map<std::string, std::vector<Shape>>> seq_groups;
  std::vector<size_t> group_of(t.data_sets.size(), 0);
  for (size_t d = 0; d < t.data_sets.size(); ++d) {
    std::map<std::string, Shape> shapes;
    for (const auto& [k, name] : dyn) {
      fs::path f = t.data_sets[d] / ("input_" + std::to_string(k) + ".pb");
      if (!fs::exists(f)) continue;
      try {
        shapes[name] = read_tensor_pb(f)->shape();
      } catch (const std::exception&) {
        // Not a tensor (a sequence, an optional): the compiler will say what it thinks of the model.
      }
    }
    // Sequence inputs: element count and shapes from the data set's SequenceProto.
    auto seqs = sequence_shapes_from_test_data(t.dir / "model.onnx", t.data_sets[d]);
    auto key = [](const std::map<std::string, Shape>& sh, const std::map<std::string, std::vector<Shape>>& sq) {
      std::string k = shapes_key(sh) + "|";
      for (const auto& [name, list] : sq) {
        k += name + "=";
        for (const auto& e : list) k += shape_str(e);
        k += ";";
      }
      return k;
    };
    size_t g = 0;
    while (g < groups.size() && key(groups[g], seq_groups[g]) != key(shapes, seqs)) ++g;
    if (g == groups.size()) {
      groups.push_back(shapes);
      seq_groups.push_back(seqs);
    }
    group_of[d] = g;
  }

  for (size_t g = 0; g < groups.size(); ++g) {
    CompileOptions co;
    co.module_name = t.module + (g == 0 ? "" : "_s" + std::to_string(g));
    co.output_dir = job.work_dir / t.module / co.module_name;
    co.input_shapes = groups[g];
    co.sequence_inputs = seq_groups[g];
    co.quiet = true;
    auto m = std::make_unique<CompiledModule>();
    try {
      *m = compile_model(t.dir / "model.onnx", co);
    } catch (const CompileError& e) {
      p->done = true;
      p->outcome = make(Category::Unsupported, e.what(), unsupported_kind(e.what()));
      return;
    } catch (const std::exception& e) {
      p->done = true;
      p->outcome = make(Category::Crash, std::string("compiler internal error: ") + e.what());
      return;
    }
    for (size_t d = 0; d < t.data_sets.size(); ++d) {
      if (group_of[d] != g) continue;
      VerifyCase c;
      c.module = m.get();
      try {
        c.data = read_test_set(t.data_sets[d], *m);
      } catch (const std::exception& e) {
        // The compiled interface (count, dtype or size of an input/output) differs from the reference.
        p->done = true;
        p->outcome = make(Category::Wrong, std::string("interface differs from the test data: ") + e.what());
        return;
      }
      c.name = co.module_name + "_" + t.data_sets[d].filename().string();
      p->cases.push_back(std::move(c));
      p->case_data_set.push_back(d);
    }
    p->modules.push_back(std::move(m));
  }
}

// The outcome of a test whose cases ran in `report` at `first`.. (the image itself succeeded).
Outcome judge_cases(const Prepared& p, const VerifyReport& r, size_t first) {
  for (size_t i = 0; i < p.cases.size(); ++i) {
    const auto& c = r.cases[first + i];
    std::string ds = p.test->data_sets[p.case_data_set[i]].filename().string();
    if (!c.ran) return make(Category::Crash, "the runner did not reach " + ds);
    if (c.status != 0)
      return make(Category::Wrong, "kiln_execute returned status " + std::to_string(c.status) + " (" + ds + ")");
    for (const auto& o : c.outputs)
      if (!o.pass) {
        std::ostringstream why;
        why << "output '" << o.name << "' (" << ds << "): " << o.mismatches << " mismatch"
            << (o.mismatches == 1 ? "" : "es") << ", first at " << o.first_mismatch;
        return make(Category::Wrong, why.str());
      }
  }
  return make(Category::Pass, "");
}

// The outcome of every test in an image that failed as a whole.
Outcome judge_failure(const VerifyReport& r) {
  const std::string& f = r.failure;
  if (f.find("timed out") != std::string::npos) return make(Category::Timeout, f);
  if (f.find("did not compile") != std::string::npos) {
    std::string line = first_error_line(r.log);
    return make(Category::Build, "generated C does not compile: " + (line.empty() ? f : line));
  }
  if (f.find("linking") != std::string::npos) {
    std::string line = first_error_line(r.log);
    return make(Category::Build, "image does not link: " + (line.empty() ? f : line));
  }
  if (f.find("runtime did not build") != std::string::npos || f.find("board support") != std::string::npos)
    return make(Category::Build, f + ": " + first_error_line(r.log));
  return make(Category::Crash, crash_line(r.log, f));
}

VerifyReport run_image(const Job& job, const std::vector<Prepared*>& tests, const fs::path& work) {
  std::vector<VerifyCase> cases;
  for (const auto* p : tests) cases.insert(cases.end(), p->cases.begin(), p->cases.end());
  VerifyOptions vo;
  vo.board = job.board;
  vo.work_dir = work;
  vo.crt_cache_dir = job.crt_cache_dir;
  vo.timeout_s = job.run_timeout_s;
  vo.sanitize = true;
  // On the host every dead buffer is also poisoned (KILN_POISON_DEAD): a value read
  // after its memory was reused no longer matches, so every passing test shows the
  // plan has no dangling alias. QEMU runs build as a user would, without it.
  vo.poison_dead = job.board == "host";
  return run_verify_cases(cases, vo);
}

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

}  // namespace

std::map<std::string, Outcome> run_job(const Job& job) {
  std::vector<Prepared> prepared(job.tests.size());
  std::vector<Prepared*> runnable;
  for (size_t i = 0; i < job.tests.size(); ++i) {
    prepare(job, job.tests[i], &prepared[i]);
    if (!prepared[i].done) runnable.push_back(&prepared[i]);
  }
  if (!runnable.empty()) {
    fs::path image = job.work_dir / "image";
    VerifyReport r = run_image(job, runnable, image);
    if (r.failure.empty()) {
      size_t first = 0;
      for (auto* p : runnable) {
        p->outcome = judge_cases(*p, r, first);
        first += p->cases.size();
      }
    } else if (runnable.size() == 1) {
      runnable[0]->outcome = judge_failure(r);
    } else {
      // Find the culprit(s): each test alone.
      for (auto* p : runnable) {
        VerifyReport one = run_image(job, {p}, job.work_dir / p->test->module / "image");
        p->outcome = one.failure.empty() ? judge_cases(*p, one, 0) : judge_failure(one);
      }
    }
    if (!job.keep && r.failure.empty()) {
      std::error_code ec;
      fs::remove_all(image, ec);
    }
  }
  std::map<std::string, Outcome> out;
  for (auto& p : prepared) {
    p.outcome.seconds = seconds_since(p.start);
    bool boring = p.outcome.category == Category::Pass || p.outcome.category == Category::Unsupported;
    if (boring && !job.keep) {
      std::error_code ec;
      fs::remove_all(job.work_dir / p.test->module, ec);
    }
    out[p.test->id] = p.outcome;
  }
  return out;
}

}  // namespace kiln::conformance
