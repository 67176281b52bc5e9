#include "cli/verify_command.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>

#include "cli/compile_options.h"
#include "ir/graph.h"
#include "onnx/sequence_test_data.h"
#include "onnx/tensor_proto.h"
#include "onnx/test_data_shapes.h"
#include "tflite/tflite_file.h"
#include "util/error.h"
#include "util/progress.h"
#include "util/quoted.h"
#include "verify/board.h"
#include "verify/profile.h"
#include "verify/verify.h"

namespace kiln {

namespace fs = std::filesystem;

namespace {

struct VerifyArgs {
  std::string model;
  std::vector<std::string> data;
  std::string board = "host";
  std::string dump_outputs;
  std::string work_dir;
  std::string crt_cache;
  double timeout_s = 300;
  bool no_sanitize = false;
  bool no_cache = false;
  bool profile = false;
  bool poison = false;
  int show_outputs = 0;
  int64_t int_tolerance = 0;
  CompileOptions compile;
};

// "[0.125, -3, ...]": the first `limit` elements of a tensor, for a person to read.
std::string fmt_values(const Constant& t, int64_t limit) {
  std::string s = "[";
  int64_t n = std::min<int64_t>(t.num_elements(), limit);
  for (int64_t i = 0; i < n; ++i) {
    char b[32];
    std::snprintf(b, sizeof b, "%.6g", t.as_double(i));
    s += (i ? ", " : "") + std::string(b);
  }
  if (t.num_elements() > n) s += ", ... (" + std::to_string(t.num_elements()) + " values)";
  return s + "]";
}

std::string fmt_error(double e) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", e);
  return b;
}

// --report FILE: the compile wrote its report there; add what verify measured.
void add_verify_to_report(const fs::path& file, const std::string& board, const CompiledModule& m,
                          const VerifyReport& r, bool profile) {
  nlohmann::json j;
  {
    std::ifstream in(file);
    if (!in) throw CompileError("cannot read the report " + in_quotes(file.string()));
    in >> j;
  }
  nlohmann::json cases = nlohmann::json::array();
  for (const auto& c : r.cases) {
    nlohmann::json cj = {{"name", c.name}, {"pass", c.pass}, {"status", c.status}, {"instructions", c.instructions}};
    if (profile) cj["profile"] = profile_json(m, c, c.instructions > 0);
    cases.push_back(cj);
  }
  j["verify"] = {{"board", board}, {"cases", cases}, {"pass", r.all_pass()}};
  std::ofstream out(file);
  out << j.dump(2) << "\n";
  if (!out) throw CompileError("cannot write the report " + in_quotes(file.string()));
}

void run(const VerifyArgs& a) {
  ProgressDisplay progress(!a.compile.quiet && stderr_is_terminal());  // stage names on a terminal
  fs::path work = a.work_dir.empty() ? fs::temp_directory_path() / ("kiln-verify-" + std::to_string(::getpid()))
                                     : fs::absolute(a.work_dir);  // generated #includes need absolute paths
  CompileOptions co = a.compile;
  co.output_dir = work / "module";
  // The board's -mcpu chooses the kernels' forms (e.g. int8 weights for MVE), as
  // `kiln compile --mcpu` would, unless --mcpu says otherwise.
  if (co.mcpu.empty())
    for (const std::string& f : load_board(a.board).cflags)
      if (f.rfind("-mcpu=", 0) == 0) co.mcpu = f.substr(6);
  // Sequence inputs not fixed by --sequence-input take the element count and shapes
  // of the first data set (input_K.pb is a SequenceProto).
  if (!a.data.empty() && !tflite::is_tflite_file(a.model))
    for (const auto& [name, shapes] : sequence_shapes_from_test_data(a.model, a.data.front()))
      co.sequence_inputs.insert({name, shapes});
  // Likewise, inputs with open dimensions not fixed by --input-shape take the shape
  // of the first data set's tensor.
  if (!a.data.empty() && !tflite::is_tflite_file(a.model))
    for (const auto& [name, shape] : open_input_shapes_from_test_data(a.model, a.data.front()))
      co.input_shapes.insert({name, shape});
  CompiledModule m = compile_model(a.model, co);

  std::vector<VerifyCase> cases;
  for (const auto& d : a.data) {
    VerifyCase c;
    c.module = &m;
    c.data = read_test_set(d, m);
    c.name = fs::path(d).lexically_normal().filename().string();
    if (c.name.empty()) c.name = fs::path(d).lexically_normal().parent_path().filename().string();
    for (auto& ch : c.name)
      if (ch == ' ') ch = '_';
    cases.push_back(std::move(c));
  }
  VerifyOptions vo;
  vo.board = a.board;
  vo.work_dir = work / ("build-" + a.board);
  vo.timeout_s = a.timeout_s;
  // Runtime objects are shared between runs in the user's cache unless told
  // otherwise; --no-cache builds them in the work folder, used once.
  if (!a.crt_cache.empty())
    vo.crt_cache_dir = a.crt_cache;
  else if (!a.no_cache)
    vo.crt_cache_dir = default_cache_dir();
  if (!vo.crt_cache_dir.empty()) {
    std::error_code ec;
    fs::create_directories(vo.crt_cache_dir, ec);
    if (ec && a.crt_cache.empty()) vo.crt_cache_dir.clear();  // an unwritable home: build in the work folder
    else if (ec) throw CompileError("--crt-cache " + in_quotes(a.crt_cache) + ": " + ec.message());
  }
  vo.sanitize = !a.no_sanitize;
  vo.poison_dead = a.poison;
  vo.profile = a.profile;
  vo.int_tolerance = a.int_tolerance;
  VerifyReport r = run_verify_cases(cases, vo);
  progress_stage("");
  if (!r.failure.empty()) {
    std::cerr << r.log << "\n";
    throw CompileError("verify on board " + in_quotes(a.board) + ": " + r.failure + " (work folder: " + work.string() + ")");
  }

  std::cout << "verify on board '" << a.board << "':\n";
  for (size_t i = 0; i < r.cases.size(); ++i) {
    const auto& c = r.cases[i];
    std::cout << "  case " << c.name << ": " << (c.pass ? "PASS" : "FAIL");
    if (c.status != 0) std::cout << " (run returned status " << c.status << ")";
    if (c.instructions > 0) std::cout << ", " << c.instructions << " instructions per inference";
    std::cout << "\n";
    for (size_t o = 0; o < c.outputs.size(); ++o) {
      const auto& oc = c.outputs[o];
      const auto& t = m.outputs[o];
      std::cout << "    output '" << oc.name << "' " << dtype_name(t.dtype) << " " << shape_str(t.shape)
                << ": max abs error " << fmt_error(oc.max_abs_error) << " " << (oc.pass ? "PASS" : "FAIL");
      if (!oc.pass) std::cout << " (" << oc.mismatches << " mismatches; first at " << oc.first_mismatch << ")";
      std::cout << "\n";
      if (a.show_outputs > 0 && o < c.output_bytes.size()) {
        auto got = Constant::from_bytes(t.dtype, t.shape, c.output_bytes[o]);
        std::cout << "      got:      " << fmt_values(*got, a.show_outputs) << "\n";
        std::cout << "      expected: " << fmt_values(*cases[i].data.expected[o], a.show_outputs) << "\n";
      }
    }
    if (a.profile) {
      std::cout << "    profile (" << (c.instructions > 0 ? "instructions per operator call" : "no instruction counter on this board")
                << "):\n"
                << profile_table(m, c, c.instructions > 0);
    }
    if (!a.dump_outputs.empty()) {
      fs::path dir = fs::path(a.dump_outputs) / (r.cases.size() > 1 ? c.name : "");
      fs::create_directories(dir);
      for (size_t o = 0; o < c.output_bytes.size() && o < m.outputs.size(); ++o) {
        const auto& t = m.outputs[o];
        auto k = Constant::from_bytes(t.dtype, t.shape, c.output_bytes[o]);
        write_tensor_pb(dir / ("output_" + std::to_string(o) + ".pb"), t.name, *k);
      }
    }
  }
  std::cout << "memory:\n";
  for (const auto& p : m.pools)
    std::cout << "  " << (p.is_workspace ? "RAM   workspace" : "flash parameter") << " pool '" << p.name << "' ("
              << (p.is_user_pool ? "user" : "internal") << "): " << p.size_bytes << " bytes\n";
  uint64_t io = 0;
  for (const auto& t : m.inputs) io += t.size_bytes;
  for (const auto& t : m.outputs) io += t.size_bytes;
  if (a.compile.io_in_workspace)
    std::cout << "  RAM   inputs + outputs: inside the workspace pool (--io-in-workspace), " << io
              << " bytes reached through map_inputs/map_outputs\n";
  else
    std::cout << "  RAM   inputs + outputs (caller's buffers): " << io << " bytes\n";
  if (r.size.text + r.size.data + r.size.bss > 0)
    std::cout << "  whole test image: flash " << r.size.text + r.size.data << " bytes (text+data), RAM "
              << r.size.data + r.size.bss << " bytes (data+bss, incl. test data and buffers)\n";
  bool pass = r.all_pass();
  if (!a.compile.report_path.empty()) add_verify_to_report(a.compile.report_path, a.board, m, r, a.profile);
  std::cout << (pass ? "PASS" : "FAIL") << "\n";
  if (a.work_dir.empty() && pass) {
    std::error_code ec;
    fs::remove_all(work, ec);
  }
  if (!pass) throw CompileError("outputs do not match the expected values");
}

}  // namespace

void add_verify_command(CLI::App& app) {
  auto a = std::make_shared<VerifyArgs>();
  auto* cmd = app.add_subcommand("verify", "compile a model, run it on a board (host or QEMU) and check its outputs");
  cmd->add_option("MODEL", a->model, "the .onnx or .tflite file")->required();
  cmd->add_option("--data", a->data, "an ONNX test data folder (input_K.pb, output_K.pb); repeatable")->required();
  cmd->add_option("--board", a->board, "host | mps2-an385 | mps2-an386 | mps2-an500 | mps3-an547 (see boards/)")
      ->capture_default_str();
  cmd->add_option("--dump-outputs", a->dump_outputs, "write the outputs as ONNX TensorProto files (output_K.pb) here");
  cmd->add_option("--work-dir", a->work_dir, "keep the generated module, firmware and build files here");
  auto* cache = cmd->add_option("--crt-cache", a->crt_cache,
                                "cache runtime and board objects in this folder (keyed by board, flags and sources; "
                                "default: $XDG_CACHE_HOME/kiln or ~/.cache/kiln)");
  cmd->add_flag("--no-cache", a->no_cache, "build the runtime in the work folder, not in the shared cache")
      ->excludes(cache);
  cmd->add_option("--timeout", a->timeout_s, "seconds before a run is killed")->capture_default_str();
  cmd->add_flag("--no-sanitize", a->no_sanitize, "host board: build without AddressSanitizer/UBSan");
  cmd->add_flag("--profile", a->profile,
                "print each operator call's op type, output shape, MACs and instructions (QEMU boards), "
                "also in --report; the image is built with -DKILN_PROFILE=1");
  cmd->add_option("--int-tolerance", a->int_tolerance,
                  "integer outputs may differ from the expected ones by up to N (default 0: exactly); 1 for "
                  "quantized ONNX models against onnxruntime (ONNX requantizes in float, Kiln in fixed point)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--poison-dead", a->poison, "fill every buffer with 0xA5 when its live range ends (KILN_POISON_DEAD)");
  cmd->add_option("--show-outputs", a->show_outputs,
                  "print the first N values of every output next to the expected ones (0: none)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  add_compile_options(cmd, &a->compile);
  a->compile.quiet = false;
  cmd->callback([a]() { run(*a); });
}

}  // namespace kiln
