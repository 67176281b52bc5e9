// The fuzz targets' oracle for accepted models (module_oracle.h), tested without
// libFuzzer: accepted seed models pass it (compiled with -Werror and run under
// ASan/UBSan on the host), and crafted modules trip each of its checks: a macro
// defined twice, a raw control byte, a warning, a sanitizer report. An oracle that
// passes everything would fail here.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "driver/compile.h"
#include "module_oracle.h"

namespace {

namespace fs = std::filesystem;
using kiln::CompiledModule;
using kiln::fuzz::check_accepted_module;
using kiln::fuzz::check_module_text;
using kiln::fuzz::module_structure;
using kiln::fuzz::ModuleFiles;
using kiln::fuzz::OracleAction;
using kiln::fuzz::OracleOptions;

CompiledModule compile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  EXPECT_TRUE(f.good()) << path;
  kiln::CompileOptions o;
  o.quiet = true;
  o.memory_planner = "greedy-by-size";
  return kiln::compile_model_in_memory(
      std::vector<uint8_t>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()), o);
}

// A fresh work folder per test (no structure seen), the runtime objects shared.
OracleOptions fresh_options(const std::string& test) {
  OracleOptions o;
  o.work_dir = fs::path(KILN_ORACLE_WORK_DIR) / (test + "-" + std::to_string(::getpid()));
  fs::remove_all(o.work_dir);
  o.crt_cache_dir = KILN_CRT_CACHE_DIR;  // beside the e2e tests' runtime objects (the same flags)
  o.timeout_s = 120;
  return o;
}

OracleAction check(const CompiledModule& m, const OracleOptions& o) { return check_accepted_module(m, o); }

std::string breach_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::logic_error& e) {
    return e.what();
  }
  return "";
}

TEST(ModuleOracle, TextChecksPassAGeneratedModule) {
  const CompiledModule m = compile(KILN_SOURCE_DIR "/examples/cnn/model.onnx");
  ASSERT_TRUE(m.files.count("metadata.h"));
  ASSERT_TRUE(m.files.count("operators.c"));
  ASSERT_TRUE(m.files.count("parameters_internal.c"));
  EXPECT_NO_THROW(check_module_text(m.files));
}

TEST(ModuleOracle, MacroDefinedTwiceIsABreach) {
  ModuleFiles f = {{"metadata.h", "#define KILN_M_INPUT_X_SIZE 4u\n#define KILN_M_INPUT_X_SIZE 8u\n"}};
  EXPECT_NE(breach_of([&] { check_module_text(f); }).find("defined twice"), std::string::npos);
  // Across files too.
  f = {{"metadata.h", "#define KILN_M_A 1\n"}, {"operators.c", "#  define KILN_M_A 1\n"}};
  EXPECT_NE(breach_of([&] { check_module_text(f); }).find("defined twice"), std::string::npos);
  // A default under its own #ifndef (an include guard, KILN_POISON_DEAD) may repeat.
  f = {{"a.c", "#ifndef KILN_POISON_DEAD\n#define KILN_POISON_DEAD 0\n#endif\n"},
       {"b.c", "#ifndef KILN_POISON_DEAD\n#define KILN_POISON_DEAD 0\n#endif\n"}};
  EXPECT_NO_THROW(check_module_text(f));
  // ... but not beside an unconditional definition.
  f["c.h"] = "#define KILN_POISON_DEAD 1\n";
  EXPECT_NE(breach_of([&] { check_module_text(f); }).find("defined twice"), std::string::npos);
}

TEST(ModuleOracle, MacroOutsideKilnPrefixIsABreach) {
  const ModuleFiles f = {{"metadata.h", "#define INT32_MAX 4\n"}};
  EXPECT_NE(breach_of([&] { check_module_text(f); }).find("not a KILN_ identifier"), std::string::npos);
}

TEST(ModuleOracle, RawControlOrNonAsciiByteIsABreach) {
  for (const std::string& bad : std::vector<std::string>{"\x07", "\r", "\xe2\x80\xae", std::string("\0", 1)}) {
    const ModuleFiles f = {{"operators.c", "/* 'x" + bad + "' */\n"}};
    EXPECT_NE(breach_of([&] { check_module_text(f); }).find("not printable ASCII"), std::string::npos);
  }
}

TEST(ModuleOracle, StructureIgnoresOrdinaryNumbersOnly) {
  bool unusual = false;
  auto key = [&](const std::string& s) { return module_structure({{"operators.c", s}}, &unusual); };
  EXPECT_EQ(key("x = { .n = 3u, .k = 1.5f }; a[] = {0x00, 0x1f, 0x02};"),
            key("x = { .n = 17u, .k = 0.25f }; a[] = {0x10, 0x2f};"));
  EXPECT_FALSE(unusual);
  EXPECT_NE(key(".n = 3u"), key(".n = 0u"));         // zero is its own class
  EXPECT_NE(key(".k = 1.5f"), key(".k = INFINITY"));  // a float turned inf
  EXPECT_NE(key(".k = 1.5f"), key(".k = -1.5f"));     // a sign
  EXPECT_NE(key("kiln_m_p0"), key("kiln_m_p1"));      // digits inside a name
  EXPECT_NE(key("{1, 2}"), key("{1.0f, 2}"));         // an int turned float
  key("/* kiln 0.1.0 (commit 7c4119f9ed9b-dirty) */");  // no literals: not unusual
  EXPECT_FALSE(unusual);
  EXPECT_NE(key(".n = 3"), key(".n = 4294967296"));  // past int32: another class
  EXPECT_EQ(key(".n = 4294967296"), key(".n = 10737418240"));
  EXPECT_FALSE(unusual);
  key(".n = 9223372036854775808u");  // past int64
  EXPECT_TRUE(unusual);
  unusual = false;
  key(".k = 1.0e-40f");  // a denormal float
  EXPECT_TRUE(unusual);
}

// Accepted seeds pass the whole oracle: each compiled with -Werror and run under
// ASan/UBSan, then recognized as seen.
TEST(ModuleOracle, AcceptedSeedsCompileAndRunClean) {
  const OracleOptions o = fresh_options("seeds");
  for (const char* model : {"/examples/cnn/model.onnx", "/tests/tflite/models/float_cnn.tflite",
                            "/tests/tflite/models/int8_ops.tflite", "/tests/malformed/reserved_names/reserved_names.onnx",
                            "/tests/malformed/hostile_names/hostile_names.onnx",
                            // The 2026-12-03 campaign's one crash input (a mutated Conv
                            // test model), which did not reproduce: kept compiled and run.
                            "/tests/fuzz/found/onnx_conv_strides_crash_unreproduced.onnx"}) {
    const CompiledModule m = compile(std::string(KILN_SOURCE_DIR) + model);
    EXPECT_EQ(check(m, o), OracleAction::CompiledAndRan) << model;
    EXPECT_EQ(check(m, o), OracleAction::SeenBefore) << model;
  }
  fs::remove_all(o.work_dir);
}

// A module with a warning in it (an unused variable) trips the compile step.
TEST(ModuleOracle, WarningInGeneratedCIsABreach) {
  CompiledModule m = compile(KILN_SOURCE_DIR "/examples/cnn/model.onnx");
  std::string& ops = m.files.at("operators.c");
  const size_t at = ops.find("kiln_status_t status;");
  ASSERT_NE(at, std::string::npos);
  ops.insert(at, "int kiln_fuzz_unused = 0;\n  ");
  const std::string why = breach_of([&] { check(m, fresh_options("warning")); });
  EXPECT_NE(why.find("did not compile"), std::string::npos) << why;
  EXPECT_NE(why.find("kiln_fuzz_unused"), std::string::npos) << why;
}

// A module that overflows an int32 at run time trips UBSan in the run step; the
// same module too large to run is only compiled.
TEST(ModuleOracle, SanitizerReportInTheRunIsABreach) {
  CompiledModule m = compile(KILN_SOURCE_DIR "/examples/cnn/model.onnx");
  std::string& ops = m.files.at("operators.c");
  const size_t at = ops.find("kiln_status_t status;");
  ASSERT_NE(at, std::string::npos);
  ops.insert(at, "{ volatile int32_t kiln_fuzz_k = INT32_MAX; kiln_fuzz_k = kiln_fuzz_k + (int32_t)(inputs != NULL); }\n  ");
  const std::string why = breach_of([&] { check(m, fresh_options("ubsan")); });
  EXPECT_NE(why.find("ended early"), std::string::npos) << why;
  EXPECT_NE(why.find("signed integer overflow"), std::string::npos) << why;
}

}  // namespace
