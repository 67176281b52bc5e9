// The conformance runner's own pieces: expectations file round trip and diff,
// reason classification, test discovery, and the process pool's timeout.
#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>

#include "catalog.h"
#include "expectations.h"
#include "outcome.h"
#include "scheduler.h"

namespace fs = std::filesystem;
using namespace kiln::conformance;

namespace {

fs::path temp_dir(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("kiln-conformance-test-" + std::to_string(::getpid())) / name;
  fs::create_directories(d);
  return d;
}

TestEntry entry(const std::string& suite, const std::string& name) {
  TestEntry t;
  t.suite = suite;
  t.name = name;
  return t;
}

Outcome outcome(Category c, const std::string& reason = "") {
  Outcome o;
  o.category = c;
  o.reason = reason;
  return o;
}

}  // namespace

TEST(ConformanceOutcome, CategoriesRoundTrip) {
  for (Category c : all_categories()) EXPECT_EQ(parse_category(category_name(c)), c);
  EXPECT_THROW(parse_category("flaky"), std::invalid_argument);
}

TEST(ConformanceOutcome, UnsupportedKindFromCompilerMessage) {
  EXPECT_EQ(unsupported_kind("Foo 'n0': operator 'Foo' is not supported by Kiln"), "op");
  EXPECT_EQ(unsupported_kind("Add 'a': dtype float16 is not supported"), "dtype");
  EXPECT_EQ(unsupported_kind("NonZero 'n': output shape is data-dependent"), "shape");
  EXPECT_EQ(unsupported_kind("Conv 'c': storage_order=1 is not supported"), "other");
}

TEST(ConformanceOutcome, OneLineCollapsesAndCaps) {
  EXPECT_EQ(one_line("  a\n\n b\tc "), "a b c");
  std::string s = one_line(std::string(1000, 'x'), 50);
  EXPECT_EQ(s.size(), 50u);
  EXPECT_EQ(s.substr(47), "...");
}

TEST(ConformanceExpectations, WriteReadAndCompare) {
  fs::path f = temp_dir("expect") / "expected_failures.txt";
  std::vector<TestEntry> tests = {entry("node", "test_a"), entry("node", "test_b"), entry("simple", "test_c")};
  std::map<std::string, Outcome> run1 = {{"node/test_a", outcome(Category::Pass)},
                                         {"node/test_b", outcome(Category::Unsupported, "op 'X' | not supported")},
                                         {"simple/test_c", outcome(Category::Wrong, "index 0: got 1, expected 2")}};
  write_expectations(f, tests, run1);
  auto e = read_expectations(f);
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e.at("node/test_b").category, Category::Unsupported);
  EXPECT_EQ(e.at("node/test_b").reason, "op 'X' | not supported");
  EXPECT_TRUE(compare_with_expectations(tests, run1, e).empty());

  // A new failure, a new pass and a change of category are all reported.
  std::map<std::string, Outcome> run2 = {{"node/test_a", outcome(Category::Crash, "SUMMARY: x")},
                                         {"node/test_b", outcome(Category::Pass)},
                                         {"simple/test_c", outcome(Category::Timeout, "slow")}};
  auto d = compare_with_expectations(tests, run2, e);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_NE(d[0].find("unexpected failure: node/test_a"), std::string::npos);
  EXPECT_NE(d[1].find("unexpected pass: node/test_b"), std::string::npos);
  EXPECT_NE(d[2].find("unexpected timeout: simple/test_c"), std::string::npos);
}

TEST(ConformanceExpectations, MalformedLinesAreErrors) {
  fs::path dir = temp_dir("malformed");
  std::ofstream(dir / "a.txt") << "node/test_a unsupported reason\n";
  EXPECT_THROW(read_expectations(dir / "a.txt"), std::runtime_error);
  std::ofstream(dir / "b.txt") << "node/test_a | PASS | fine\n";
  EXPECT_THROW(read_expectations(dir / "b.txt"), std::runtime_error);
  std::ofstream(dir / "c.txt") << "node/test_a | wrong | x\nnode/test_a | crash | y\n";
  EXPECT_THROW(read_expectations(dir / "c.txt"), std::runtime_error);
  EXPECT_TRUE(read_expectations(dir / "missing.txt").empty());
}

TEST(ConformanceCatalog, ReadsOpsAndDtypes) {
  auto tests = discover_tests(KILN_CONFORMANCE_DATA, {"node"});
  ASSERT_GT(tests.size(), 900u);
  auto find = [&](const std::string& name) -> const TestEntry& {
    for (const auto& t : tests)
      if (t.name == name) return t;
    throw std::runtime_error(name + " not found");
  };
  const TestEntry& abs = find("test_abs");
  EXPECT_EQ(abs.ops, std::set<std::string>{"Abs"});
  EXPECT_TRUE(abs.float32_only);
  EXPECT_EQ(abs.data_sets.size(), 1u);
  // Int64 output: not float32-only.
  EXPECT_FALSE(find("test_argmax_default_axis_example").float32_only);
  // Ops inside subgraphs count too.
  EXPECT_TRUE(find("test_if").ops.count("If"));
  EXPECT_GT(find("test_if").ops.size(), 1u);
}

TEST(ConformanceScheduler, RunsInParallelAndKillsOnTimeout) {
  fs::path dir = temp_dir("sched");
  std::vector<ChildSpec> specs = {
      {{"/bin/sh", "-c", "exit 3"}, (dir / "a.log").string(), 10},
      {{"/bin/sh", "-c", "sleep 30"}, (dir / "b.log").string(), 0.5},
      {{"/bin/sh", "-c", "kill -SEGV $$"}, (dir / "c.log").string(), 10},
  };
  std::map<size_t, ChildResult> got;
  run_children(specs, 2, [&](size_t i, const ChildResult& r) { got[i] = r; });
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].exit_code, 3);
  EXPECT_TRUE(got[1].timed_out);
  EXPECT_LT(got[1].seconds, 10.0);
  EXPECT_EQ(got[2].signal, 11);
}
