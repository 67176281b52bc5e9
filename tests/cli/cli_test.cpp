// Runs the real `kiln` binary the way a user does and checks what they see:
// bad input gives exactly one line "kiln: error: ..." naming the node or flag and a
// non-zero exit, never a crash; good input writes the documented files.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>
#include <sstream>

#include "util/process.h"

namespace fs = std::filesystem;
using kiln::run_process;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() /
           ("kiln-cli-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

kiln::ProcessResult kiln_run(std::vector<std::string> args) {
  args.insert(args.begin(), KILN_EXE);
  return run_process(args, 120, /*merge_stderr=*/false);
}

int count_lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

// A one-node model y = OP(x) over float32 [1, 4].
void write_unary_model(const fs::path& file, const std::string& op, const std::string& domain = "") {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* imp = m.add_opset_import();
  imp->set_domain("");
  imp->set_version(13);
  if (!domain.empty()) {
    auto* d = m.add_opset_import();
    d->set_domain(domain);
    d->set_version(1);
  }
  auto* g = m.mutable_graph();
  g->set_name("g");
  auto* n = g->add_node();
  n->set_op_type(op);
  n->set_domain(domain);
  n->set_name("the_node");
  n->add_input("x");
  n->add_output("y");
  for (const char* name : {"x", "y"}) {
    auto* vi = std::string(name) == "x" ? g->add_input() : g->add_output();
    vi->set_name(name);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::FLOAT);
    tt->mutable_shape()->add_dim()->set_dim_value(1);
    tt->mutable_shape()->add_dim()->set_dim_value(4);
  }
  std::ofstream out(file, std::ios::binary);
  ASSERT_TRUE(m.SerializeToOstream(&out));
}

void expect_one_line_error(const kiln::ProcessResult& r, const std::string& must_contain) {
  EXPECT_EQ(r.exit_code, 1) << r.output << r.error;
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.error.rfind("kiln: error: ", 0), 0u) << r.error;
  EXPECT_EQ(count_lines(r.error), 1) << r.error;
  EXPECT_NE(r.error.find(must_contain), std::string::npos) << r.error;
}

TEST(Cli, TruncatedModelIsAOneLineError) {
  TempDir t;
  std::ifstream in(fs::path(KILN_EXAMPLE_DIR) / "model.onnx", std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string bytes = ss.str();
  ASSERT_GT(bytes.size(), 1000u);
  std::ofstream(t.path / "truncated.onnx", std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  auto r = kiln_run({"compile", (t.path / "truncated.onnx").string(), "-o", (t.path / "out").string()});
  expect_one_line_error(r, "truncated.onnx");
  EXPECT_FALSE(fs::exists(t.path / "out" / "metadata.h"));
}

TEST(Cli, GarbageFileIsAOneLineError) {
  TempDir t;
  std::ofstream(t.path / "garbage.onnx", std::ios::binary) << "this is not a protobuf \xff\xfe\x01";
  auto r = kiln_run({"compile", (t.path / "garbage.onnx").string(), "-o", (t.path / "out").string()});
  expect_one_line_error(r, "garbage.onnx");
}

TEST(Cli, MissingModelFileIsAOneLineError) {
  TempDir t;
  auto r = kiln_run({"compile", (t.path / "nope.onnx").string(), "-o", (t.path / "out").string()});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.error.find("nope.onnx"), std::string::npos) << r.error;
}

TEST(Cli, UnknownOperatorNamesTheNode) {
  TempDir t;
  // A custom-domain op the checker accepts but Kiln cannot lower.
  write_unary_model(t.path / "custom.onnx", "FancyOp", "com.example");
  auto r = kiln_run({"compile", (t.path / "custom.onnx").string(), "-o", (t.path / "out").string()});
  expect_one_line_error(r, "the_node");
}

TEST(Cli, OperatorWithoutKernelNamesTheNode) {
  TempDir t;
  // A valid ONNX op with no Kiln lowering (String ops make no sense on an MCU).
  write_unary_model(t.path / "nokernel.onnx", "StringNormalizer");
  auto r = kiln_run({"compile", (t.path / "nokernel.onnx").string(), "-o", (t.path / "out").string()});
  EXPECT_EQ(r.exit_code, 1) << r.error;
  EXPECT_EQ(count_lines(r.error), 1) << r.error;
}

TEST(Cli, BadPoolFlagNamesTheFlag) {
  TempDir t;
  auto r = kiln_run({"compile", std::string(KILN_EXAMPLE_DIR) + "/model.onnx", "-o", (t.path / "out").string(),
                     "--with-workspace-buffer", "name=sram;size=lots"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.error.find("size"), std::string::npos) << r.error;
  EXPECT_EQ(count_lines(r.error), 1) << r.error;
}

TEST(Cli, PoolTooSmallNamesBufferAndShortfall) {
  TempDir t;
  auto r = kiln_run({"compile", std::string(KILN_EXAMPLE_DIR) + "/model.onnx", "-o", (t.path / "out").string(),
                     "--with-workspace-buffer", "name=tiny;size=1024"});
  EXPECT_EQ(r.exit_code, 1) << r.output << r.error;
  EXPECT_NE(r.error.find("tiny"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("bytes"), std::string::npos) << r.error;
}

TEST(Cli, DynamicInputNeedsInputShape) {
  TempDir t;
  write_unary_model(t.path / "relu.onnx", "Relu");
  // Make the batch dimension symbolic.
  onnx::ModelProto m;
  {
    std::ifstream in(t.path / "relu.onnx", std::ios::binary);
    ASSERT_TRUE(m.ParseFromIstream(&in));
  }
  for (auto* vi : {m.mutable_graph()->mutable_input(0), m.mutable_graph()->mutable_output(0)})
    vi->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_param("N");
  {
    std::ofstream out(t.path / "dyn.onnx", std::ios::binary);
    ASSERT_TRUE(m.SerializeToOstream(&out));
  }
  auto r = kiln_run({"compile", (t.path / "dyn.onnx").string(), "-o", (t.path / "out").string()});
  expect_one_line_error(r, "--input-shape");
  auto ok = kiln_run({"compile", (t.path / "dyn.onnx").string(), "-o", (t.path / "out").string(), "--input-shape",
                      "x=2,4", "-q"});
  EXPECT_EQ(ok.exit_code, 0) << ok.error;
  std::ifstream h(t.path / "out" / "metadata.h");
  std::stringstream hs;
  hs << h.rdbuf();
  EXPECT_NE(hs.str().find("KILN_DEFAULT_INPUT_X_SIZE 32"), std::string::npos) << hs.str().substr(0, 3000);
}

TEST(Cli, CompileWritesTheDocumentedFiles) {
  TempDir t;
  auto r = kiln_run({"compile", std::string(KILN_EXAMPLE_DIR) + "/model.onnx", "-o", (t.path / "out").string(),
                     "--module-name", "cnn", "--with-workspace-buffer", "name=sram;size=65536",
                     "--with-parameter-buffer", "name=flash"});
  ASSERT_EQ(r.exit_code, 0) << r.error;
  for (const char* f : {"metadata.h", "metadata.c", "operators.c", "parameters_flash.c", "module.mk",
                        "CMakeLists.txt", "crt/include/kiln_crt.h"})
    EXPECT_TRUE(fs::exists(t.path / "out" / f)) << f;
  // The summary names each pool with its size and lower bound.
  EXPECT_NE(r.output.find("sram"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("lower bound"), std::string::npos) << r.output;
}

// The same model and flags give byte-identical output (the planners' budgets are
// node counts, not clocks; nothing depends on time, paths or hash order).
TEST(Cli, CompilingTwiceGivesByteIdenticalOutput) {
  TempDir t;
  auto slurp = [](const fs::path& f) {
    std::ifstream in(f, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  };
  for (const char* planner : {"auto", "exact", "hill-climb"}) {
    // Same folder name (the integration files mention it), different parents.
    std::vector<fs::path> dirs = {t.path / (std::string(planner) + "_a") / "out",
                                  t.path / (std::string(planner) + "_b") / "out"};
    for (const auto& d : dirs) {
      auto r = kiln_run({"compile", std::string(KILN_EXAMPLE_DIR) + "/model.onnx", "-o", d.string(), "-q",
                         "--memory-planner", planner, "--with-workspace-buffer", "name=sram;size=40000",
                         "--with-workspace-buffer", "name=dram"});
      ASSERT_EQ(r.exit_code, 0) << r.error;
    }
    int files = 0;
    for (const auto& e : fs::recursive_directory_iterator(dirs[0])) {
      if (!e.is_regular_file()) continue;
      const fs::path rel = fs::relative(e.path(), dirs[0]);
      ASSERT_TRUE(fs::exists(dirs[1] / rel)) << rel;
      EXPECT_EQ(slurp(e.path()), slurp(dirs[1] / rel)) << planner << ": " << rel;
      ++files;
    }
    EXPECT_GT(files, 5);
  }
}

// The report and the memory map show what the operator order did: the live peak
// in the model's order and in the order chosen (tests/bufferize/models/
// residual_concat: the searched order needs 18,432 bytes, the model's 23,040), and
// the plan of each order takes exactly those bytes.
TEST(Cli, ReportAndMemoryMapShowThePeakBeforeAndAfterTheSchedule) {
  TempDir t;
  auto r = kiln_run({"compile", KILN_RESIDUAL_CONCAT_MODEL, "-o", (t.path / "out").string(), "-q", "--report",
                     (t.path / "report.json").string(), "--memory-map", (t.path / "map.svg").string()});
  ASSERT_EQ(r.exit_code, 0) << r.error;
  auto workspace_bytes = [](const nlohmann::json& j) {
    for (const auto& p : j.at("plan").at("pools"))
      if (p.at("kind") == "workspace") return p.at("size_bytes").get<uint64_t>();
    return uint64_t(0);
  };
  std::ifstream in(t.path / "report.json");
  const nlohmann::json j = nlohmann::json::parse(in);
  const nlohmann::json& s = j.at("schedule_search");
  EXPECT_TRUE(s.at("searched").get<bool>());
  EXPECT_TRUE(s.at("reordered").get<bool>());
  const uint64_t before = s.at("program_order_peak").get<uint64_t>(), after = s.at("chosen_order_peak").get<uint64_t>();
  EXPECT_EQ(before, 23040u);
  EXPECT_EQ(after, 18432u);
  EXPECT_LE(s.at("order_independent_bound").get<uint64_t>(), after);
  EXPECT_EQ(workspace_bytes(j), after);
  // The memory map's caption says both.
  std::ifstream svg_in(t.path / "map.svg");
  std::stringstream svg;
  svg << svg_in.rdbuf();
  EXPECT_NE(svg.str().find("live peak 23040 B in program order, 18432 B as scheduled"), std::string::npos)
      << svg.str().substr(0, 600);
  // The model's own order plans the "before" bytes.
  auto p = kiln_run({"compile", KILN_RESIDUAL_CONCAT_MODEL, "-o", (t.path / "program").string(), "-q", "--schedule",
                     "program", "--report", (t.path / "program.json").string()});
  ASSERT_EQ(p.exit_code, 0) << p.error;
  std::ifstream pin(t.path / "program.json");
  const nlohmann::json pj = nlohmann::json::parse(pin);
  EXPECT_EQ(workspace_bytes(pj), before);
  EXPECT_FALSE(pj.at("schedule_search").at("reordered").get<bool>());
}

// The order-independent bound counts bytes as the plan does (activations rounded
// to 16, scratch to 4): on inverted_residual it once said 92,400 B against a
// reached peak of 92,396 B (scratch rounded to 16). Where operators fused after
// scheduling go below the bound of the unfused graph (groupnorm18: its 7 nodes
// become 3 calls and no workspace), the summary says so instead of claiming it.
TEST(Cli, ScheduleBoundNeverExceedsThePeakItClaimsToBound) {
  TempDir t;
  auto r = kiln_run({"compile", KILN_INVERTED_RESIDUAL_MODEL, "-o", (t.path / "ir").string(), "-q", "--report",
                     (t.path / "ir.json").string()});
  ASSERT_EQ(r.exit_code, 0) << r.error;
  std::ifstream in(t.path / "ir.json");
  const nlohmann::json s = nlohmann::json::parse(in).at("schedule_search");
  ASSERT_TRUE(s.at("searched").get<bool>());
  EXPECT_LE(s.at("order_independent_bound").get<uint64_t>(), s.at("chosen_order_peak").get<uint64_t>());
  auto g = kiln_run({"compile", KILN_GROUPNORM18_MODEL, "-o", (t.path / "gn").string()});
  ASSERT_EQ(g.exit_code, 0) << g.error;
  EXPECT_NE(g.output.find("0 B as scheduled; operators fused after scheduling go below the unfused graph's bound"),
            std::string::npos)
      << g.output;
  EXPECT_EQ(g.output.find("no order needs less than"), std::string::npos) << g.output;
}

TEST(Cli, HelpListsEveryCommand) {
  auto r = kiln_run({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  // The usage line names the program (and a command's, the command after it).
  EXPECT_NE(r.output.find("\nUsage: kiln [OPTIONS] SUBCOMMAND"), std::string::npos) << r.output;
  for (const char* cmd : {"compile", "verify"}) EXPECT_NE(r.output.find(cmd), std::string::npos) << cmd;
  auto c = kiln_run({"compile", "--help"});
  EXPECT_EQ(c.exit_code, 0);
  EXPECT_NE(c.output.find("\nUsage: kiln compile [OPTIONS] MODEL"), std::string::npos) << c.output;
  for (const char* flag : {"--with-workspace-buffer", "--with-parameter-buffer", "--module-name", "--memory-planner",
                           "--pin", "--output-format", "--executor", "--target", "--report", "--memory-map"})
    EXPECT_NE(c.output.find(flag), std::string::npos) << flag;
}

// --profile on QEMU: every operator call of the demo CNN in order with its op
// type, shape, MACs and instructions, in the table and in --report; the
// instructions of the calls add up to the total; and the unprofiled image has no
// hooks: its total is below the profiled one by at most a small cost per call.
TEST(Cli, VerifyProfilePerOperatorOnQemu) {
  TempDir t;
  const std::string model = std::string(KILN_EXAMPLE_DIR) + "/model.onnx";
  const std::string data = std::string(KILN_EXAMPLE_DIR) + "/test_data_set_0";
  auto verify = [&](const std::string& name, bool profile) {
    std::vector<std::string> args = {"verify", model, "--data", data, "--board", "mps2-an386", "--work-dir",
                                     (t.path / name).string(), "--report", (t.path / (name + ".json")).string(),
                                     "--crt-cache", (t.path / "cache").string()};
    if (profile) args.push_back("--profile");
    return kiln_run(args);
  };
  auto r = verify("plain", false);
  ASSERT_EQ(r.exit_code, 0) << r.output << r.error;
  EXPECT_EQ(r.output.find("profile"), std::string::npos) << r.output;
  auto p = verify("profiled", true);
  ASSERT_EQ(p.exit_code, 0) << p.output << p.error;
  // conv1: 8x28x28 outputs x 1x3x3 weights.
  EXPECT_NE(p.output.find("Conv '/conv1/Conv'"), std::string::npos) << p.output;
  EXPECT_NE(p.output.find("[1,8,28,28]"), std::string::npos) << p.output;
  EXPECT_NE(p.output.find("56448"), std::string::npos) << p.output;

  auto load = [&](const std::string& name) {
    std::ifstream in(t.path / (name + ".json"));
    nlohmann::json j;
    in >> j;
    return j;
  };
  nlohmann::json plain = load("plain"), prof = load("profiled");
  ASSERT_TRUE(plain.contains("verify")) << plain.dump();
  EXPECT_FALSE(plain["verify"]["cases"][0].contains("profile"));
  const auto& ops = prof["verify"]["cases"][0]["profile"]["operators"];
  ASSERT_EQ(ops.size(), 10u) << prof.dump();
  const std::vector<std::string> types = {"Conv", "Relu", "MaxPool", "Conv", "Relu",
                                          "MaxPool", "Gemm", "Relu", "Gemm", "Softmax"};
  uint64_t sum = 0, total = prof["verify"]["cases"][0]["instructions"].get<uint64_t>();
  double shares = 0;
  for (size_t i = 0; i < ops.size(); ++i) {
    EXPECT_EQ(ops[i]["step"].get<size_t>(), i);
    EXPECT_EQ(ops[i]["op_type"].get<std::string>(), types[i]) << i;
    EXPECT_GT(ops[i]["instructions"].get<uint64_t>(), 0u) << i;
    sum += ops[i]["instructions"].get<uint64_t>();
    shares += ops[i]["share"].get<double>();
  }
  EXPECT_EQ(ops[0]["macs"].get<uint64_t>(), 56448u);
  EXPECT_EQ(ops[1]["macs"].get<uint64_t>(), 0u);
  EXPECT_LE(sum, total);
  EXPECT_EQ(prof["verify"]["cases"][0]["profile"]["other_instructions"].get<uint64_t>(), total - sum);
  EXPECT_GT(shares, 0.95);
  EXPECT_LE(shares, 1.0);
  // The convolutions are where the time goes in this model.
  EXPECT_GT(ops[3]["instructions"].get<uint64_t>(), ops[8]["instructions"].get<uint64_t>());
  const uint64_t unprofiled = plain["verify"]["cases"][0]["instructions"].get<uint64_t>();
  EXPECT_LT(unprofiled, total);
  EXPECT_LE(total - unprofiled, 10u * 300u) << "hooks cost more than expected";
}

// Long work says what it is doing on a terminal (`script` gives kiln one) and
// nothing when piped: here the exact planner on a 213-buffer instance for ~2 s.
TEST(Cli, ProgressOnATerminalOnly) {
  const std::string csv = std::string(KILN_TEST_DATA_DIR) + "/dsa-challenging/D.1048576.csv";
  const std::string cmd = std::string(KILN_EXE) + " plan --csv " + csv + " --memory-planner exact --planner-budget-ms 2000";
  auto tty = run_process({"script", "-qec", cmd, "/dev/null"}, 120);
  ASSERT_EQ(tty.exit_code, 0) << tty.output;
  EXPECT_NE(tty.output.find("kiln: planning 213 buffers (exact) ("), std::string::npos) << tty.output;
  EXPECT_NE(tty.output.find("%, "), std::string::npos) << tty.output;  // the share of the search budget
  auto piped = kiln_run({"plan", "--csv", csv, "--memory-planner", "exact", "--planner-budget-ms", "2000"});
  ASSERT_EQ(piped.exit_code, 0) << piped.error;
  EXPECT_EQ(piped.error, "");
  EXPECT_EQ(piped.output.find("kiln: planning"), std::string::npos) << piped.output;
  EXPECT_EQ(piped.output.find('\r'), std::string::npos);
}

TEST(Cli, VersionNamesVersionCommitAndDataFolder) {
  auto r = kiln_run({"--version"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.output.rfind("kiln 0.", 0), 0u) << r.output;
  EXPECT_NE(r.output.find("(commit "), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("(commit )"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("data: "), std::string::npos) << r.output;
}

// Generated files name the tool that wrote them as `kiln --version` does: the real
// version and commit (the C files' header comments and the MLF metadata alike).
TEST(Cli, GeneratedFilesNameTheVersionAndCommit) {
  TempDir t;
  auto v = kiln_run({"--version"});
  ASSERT_EQ(v.exit_code, 0);
  const std::string identity = v.output.substr(0, v.output.find('\n'));
  ASSERT_NE(identity.find("(commit "), std::string::npos) << identity;
  auto r = kiln_run({"compile", std::string(KILN_EXAMPLE_DIR) + "/model.onnx", "-o", (t.path / "cnn").string(),
                     "--module-name", "cnn", "--output-format", "mlf"});
  ASSERT_EQ(r.exit_code, 0) << r.error;
  auto tar = run_process({"tar", "-xOf", (t.path / "cnn.tar").string(), "metadata.json"}, 60, false);
  ASSERT_EQ(tar.exit_code, 0) << tar.error;
  EXPECT_EQ(nlohmann::json::parse(tar.output)["generator"].get<std::string>(), identity);
  for (const char* f : {"metadata.h", "metadata.c", "operators.c", "parameters_internal.c", "module_internal.h",
                        "module.mk", "CMakeLists.txt"}) {
    std::ifstream in(t.path / "cnn" / f);
    std::string first, second;
    std::getline(in, first);
    std::getline(in, second);
    EXPECT_NE((first + second).find("Generated by " + identity), std::string::npos) << f << ": " << first << second;
  }
}

TEST(Cli, VerifyMismatchExitsNonZero) {
  TempDir t;
  // Expected outputs of data set 1 paired with the inputs of data set 0.
  fs::create_directories(t.path / "wrong");
  fs::copy_file(fs::path(KILN_EXAMPLE_DIR) / "test_data_set_0" / "input_0.pb", t.path / "wrong" / "input_0.pb");
  fs::copy_file(fs::path(KILN_EXAMPLE_DIR) / "test_data_set_1" / "output_0.pb", t.path / "wrong" / "output_0.pb");
  auto r = kiln_run({"verify", std::string(KILN_EXAMPLE_DIR) + "/model.onnx", "--data", (t.path / "wrong").string(),
                     "--board", "host", "--no-sanitize", "--no-cache", "--work-dir", (t.path / "work").string()});
  EXPECT_EQ(r.exit_code, 1) << r.output << r.error;
  EXPECT_NE(r.output.find("FAIL"), std::string::npos) << r.output;
}

// The runtime objects (name stem -> path) in a verify cache folder.
std::map<std::string, fs::path> cached_objects(const fs::path& cache) {
  std::map<std::string, fs::path> objs;
  if (!fs::exists(cache)) return objs;
  for (const auto& e : fs::recursive_directory_iterator(cache))
    if (e.path().extension() == ".o") objs[e.path().stem().string()] = e.path();
  return objs;
}

// `kiln verify` builds only the runtime files the module calls, keeps them in
// $XDG_CACHE_HOME/kiln and reuses them on the next run; --no-cache leaves the
// user's cache alone.
TEST(Cli, VerifyCachesOnlyTheNeededRuntimeInTheUserCache) {
  TempDir t;
  const std::string model = std::string(KILN_EXAMPLE_DIR) + "/model.onnx";
  const std::string data = std::string(KILN_EXAMPLE_DIR) + "/test_data_set_0";
  auto verify = [&](const fs::path& xdg, std::vector<std::string> extra) {
    std::vector<std::string> args = {"env", "XDG_CACHE_HOME=" + xdg.string(), KILN_EXE, "verify", model, "--data", data,
                                     "--board", "host", "--no-sanitize", "--work-dir", (t.path / "work").string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_process(args, 300, /*merge_stderr=*/false);
  };
  auto r = verify(t.path / "xdg", {});
  ASSERT_EQ(r.exit_code, 0) << r.output << r.error;
  auto objs = cached_objects(t.path / "xdg" / "kiln");
  // The CNN calls conv, gemm, maxpool, relu and softmax: those, the runtime and
  // the two host board files, not the ~150 files of the whole runtime.
  std::string names;
  for (const auto& [stem, path] : objs) names += stem + " ";
  EXPECT_LE(objs.size(), 10u) << names;
  auto has = [&](const std::string& prefix) {
    for (const auto& [stem, path] : objs)
      if (stem.rfind(prefix, 0) == 0) return true;
    return false;
  };
  for (const char* k : {"src_kernels_conv-", "src_kernels_gemm-", "src_kernels_softmax-", "src_runtime_kiln_crt-"})
    EXPECT_TRUE(has(k)) << k << " not in: " << names;
  EXPECT_FALSE(has("src_kernels_abs-")) << names;
  // The module's build files list the same runtime files.
  std::ifstream mk(t.path / "work" / "module" / "module.mk");
  std::stringstream mks;
  mks << mk.rdbuf();
  EXPECT_NE(mks.str().find("src/kernels/conv.c"), std::string::npos) << mks.str();
  EXPECT_EQ(mks.str().find("src/kernels/abs.c"), std::string::npos) << mks.str();

  // A second run reuses every object: none is rewritten.
  std::map<std::string, fs::file_time_type> before;
  for (const auto& [stem, path] : objs) before[stem] = fs::last_write_time(path);
  r = verify(t.path / "xdg", {});
  ASSERT_EQ(r.exit_code, 0) << r.output << r.error;
  auto again = cached_objects(t.path / "xdg" / "kiln");
  EXPECT_EQ(again.size(), objs.size());
  for (const auto& [stem, path] : again) EXPECT_EQ(fs::last_write_time(path), before[stem]) << stem;

  r = verify(t.path / "xdg2", {"--no-cache"});
  ASSERT_EQ(r.exit_code, 0) << r.output << r.error;
  EXPECT_FALSE(fs::exists(t.path / "xdg2" / "kiln"));
  r = verify(t.path / "xdg2", {"--no-cache", "--crt-cache", (t.path / "c").string()});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.error.find("--no-cache"), std::string::npos) << r.error;
}

}  // namespace

TEST(Cli, PoolFlagWithoutNameIsAnErrorNotACrash) {
  TempDir t;
  auto r = kiln_run({"compile", std::string(KILN_EXAMPLE_DIR) + "/model.onnx", "-o", (t.path / "out").string(),
                     "--with-workspace-buffer", "size=4096"});
  expect_one_line_error(r, "missing name=");
  EXPECT_NE(r.error.find("--with-workspace-buffer"), std::string::npos) << r.error;
}

TEST(Cli, NoFoldExplainsWhyAComputedShapeIsUnknown) {
  TempDir t;
  auto r = kiln_run({"compile", std::string(KILN_EXAMPLE_DIR) + "/model.onnx", "-o", (t.path / "out").string(),
                     "--no-fold"});
  expect_one_line_error(r, "--no-fold");
  EXPECT_NE(r.error.find("Reshape"), std::string::npos) << r.error;
}

TEST(Cli, InspectListsOperatorsAndWhatFoldingDid) {
  auto r = kiln_run({"inspect", std::string(KILN_EXAMPLE_DIR) + "/model.onnx"});
  ASSERT_EQ(r.exit_code, 0) << r.error;
  // The example: two Conv+BatchNormalization pairs fold into the Conv weights, and the
  // Unsqueeze/Concat chain that computes the Reshape target becomes a constant.
  EXPECT_NE(r.output.find("input: float32[1,1,28,28]"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("BatchNormalization x2"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("conv-batchnorm x2"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("folding: 16 -> 11 nodes"), std::string::npos) << r.output;
  const auto after = r.output.find("operators after folding");
  ASSERT_NE(after, std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("BatchNormalization", after), std::string::npos) << r.output;
  auto bad = kiln_run({"inspect", "/nonexistent/model.onnx"});
  expect_one_line_error(bad, "/nonexistent/model.onnx");
}
