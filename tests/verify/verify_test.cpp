// `kiln verify`'s comparison rule and test-data reader (no board involved).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>

#include "../support/expect_contains.h"
#include "onnx/tensor_proto.h"
#include "util/error.h"
#include "verify/verify.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;

template <typename T>
std::vector<uint8_t> bytes_of(const std::vector<T>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  if (!b.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

OutputCheck cmp_f(float expected, float got) {
  return compare_output("y", *Constant::from_floats({1}, {expected}), bytes_of(std::vector<float>{got}));
}

TEST(CompareOutput, FloatToleranceIsAtolPlusRtolTimesExpected) {
  // |a - e| <= 1e-7 + 1e-3 * |e|
  EXPECT_TRUE(cmp_f(1.0f, 1.0f).pass);
  EXPECT_TRUE(cmp_f(1000.f, 1000.9f).pass);   // err 0.9 <= 1.0000001
  EXPECT_FALSE(cmp_f(1000.f, 1001.1f).pass);  // err 1.1
  EXPECT_TRUE(cmp_f(-2.f, -2.0019f).pass);
  EXPECT_FALSE(cmp_f(-2.f, -2.0021f).pass);
  EXPECT_TRUE(cmp_f(0.f, 9e-8f).pass);        // atol near zero
  EXPECT_FALSE(cmp_f(0.f, 2e-7f).pass);
  EXPECT_FALSE(cmp_f(0.f, -2e-7f).pass);
  EXPECT_TRUE(cmp_f(0.f, -0.f).pass);
  EXPECT_TRUE(cmp_f(1.f, 1.0009f).pass);
  EXPECT_FALSE(cmp_f(1.f, 1.0011f).pass);
}

TEST(CompareOutput, NaNMatchesOnlyNaNAndInfinitiesMatchExactly) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  EXPECT_TRUE(cmp_f(nan, nan).pass);
  EXPECT_TRUE(cmp_f(nan, -nan).pass);
  EXPECT_FALSE(cmp_f(nan, 1.f).pass);
  EXPECT_FALSE(cmp_f(1.f, nan).pass);
  EXPECT_TRUE(cmp_f(inf, inf).pass);
  EXPECT_TRUE(cmp_f(-inf, -inf).pass);
  EXPECT_FALSE(cmp_f(inf, -inf).pass);
  EXPECT_FALSE(cmp_f(inf, 3e38f).pass);
  EXPECT_FALSE(cmp_f(3e38f, inf).pass);
  EXPECT_FALSE(cmp_f(-inf, nan).pass);
}

TEST(CompareOutput, ReportsMaxErrorMismatchCountAndFirstMismatch) {
  auto e = Constant::from_floats({2, 3}, {0, 1, 2, 3, 4, 5});
  OutputCheck c = compare_output("out", *e, bytes_of(std::vector<float>{0, 1.5f, 2, 3.25f, 4, 5.0001f}));
  EXPECT_EQ(c.name, "out");
  EXPECT_FALSE(c.pass);
  EXPECT_EQ(c.mismatches, 2u);  // index 5 is within tolerance
  EXPECT_DOUBLE_EQ(c.max_abs_error, 0.5);
  EXPECT_CONTAINS(c.first_mismatch, "index 1");
  EXPECT_CONTAINS(c.first_mismatch, "1.5");

  OutputCheck ok = compare_output("out", *e, bytes_of(std::vector<float>{0, 1, 2, 3, 4, 5.0001f}));
  EXPECT_TRUE(ok.pass);
  EXPECT_EQ(ok.mismatches, 0u);
  EXPECT_NEAR(ok.max_abs_error, 1e-4, 1e-6);
  EXPECT_TRUE(ok.first_mismatch.empty());
}

TEST(CompareOutput, NaNDoesNotPoisonTheMaxError) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto e = Constant::from_floats({2}, {nan, 1.f});
  OutputCheck c = compare_output("y", *e, bytes_of(std::vector<float>{nan, 1.25f}));
  EXPECT_FALSE(c.pass);
  EXPECT_DOUBLE_EQ(c.max_abs_error, 0.25);
}

TEST(CompareOutput, IntegersAreExact) {
  auto e = Constant::from_int64s({3}, {5, -7, std::numeric_limits<int64_t>::max()});
  EXPECT_TRUE(compare_output("i", *e, bytes_of(std::vector<int64_t>{5, -7, std::numeric_limits<int64_t>::max()})).pass);
  OutputCheck off = compare_output("i", *e, bytes_of(std::vector<int64_t>{5, -7, std::numeric_limits<int64_t>::max() - 1}));
  EXPECT_FALSE(off.pass);  // a difference below any float tolerance still fails
  EXPECT_EQ(off.mismatches, 1u);
  EXPECT_CONTAINS(off.first_mismatch, "index 2");

  auto e32 = Constant::from_bytes(DType::Int32, {2}, bytes_of(std::vector<int32_t>{1000, 0}));
  EXPECT_FALSE(compare_output("i", *e32, bytes_of(std::vector<int32_t>{1001, 0})).pass);  // 1e-3 relative would allow it
  auto e8 = Constant::from_bytes(DType::UInt8, {2}, {255, 0});
  EXPECT_TRUE(compare_output("u", *e8, {255, 0}).pass);
  EXPECT_FALSE(compare_output("u", *e8, {254, 0}).pass);
}

TEST(CompareOutput, BoolsAreExact) {
  auto e = Constant::from_bytes(DType::Bool, {4}, {0, 1, 1, 0});
  EXPECT_TRUE(compare_output("b", *e, {0, 1, 1, 0}).pass);
  OutputCheck c = compare_output("b", *e, {0, 1, 0, 0});
  EXPECT_FALSE(c.pass);
  EXPECT_EQ(c.mismatches, 1u);
}

TEST(CompareOutput, OtherFloatTypesUseTheFloatRule) {
  auto e = Constant::from_bytes(DType::Float64, {1}, bytes_of(std::vector<double>{1000.0}));
  EXPECT_TRUE(compare_output("d", *e, bytes_of(std::vector<double>{1000.5})).pass);
  EXPECT_FALSE(compare_output("d", *e, bytes_of(std::vector<double>{1001.5})).pass);
  auto h = Constant::from_bytes(DType::Float16, {1}, {0x00, 0x3c});  // 1.0
  EXPECT_TRUE(compare_output("h", *h, {0x00, 0x3c}).pass);
  EXPECT_TRUE(compare_output("h", *h, {0x01, 0x3c}).pass);   // next half up: 1.000977, within 1e-3
  EXPECT_FALSE(compare_output("h", *h, {0x02, 0x3c}).pass);  // two halves up: 1.001953
}

TEST(CompareOutput, WrongByteCountFails) {
  auto e = Constant::from_floats({2}, {1, 2});
  OutputCheck c = compare_output("y", *e, bytes_of(std::vector<float>{1}));
  EXPECT_FALSE(c.pass);
  EXPECT_CONTAINS(c.first_mismatch, "4 bytes");
  EXPECT_CONTAINS(c.first_mismatch, "8");
}

TEST(VerifyReport, AllPassNeedsCasesAndNoFailure) {
  VerifyReport r;
  EXPECT_FALSE(r.all_pass());
  CaseResult ok;
  ok.pass = true;
  r.cases.push_back(ok);
  EXPECT_TRUE(r.all_pass());
  r.failure = "image did not build";
  EXPECT_FALSE(r.all_pass());
  r.failure.clear();
  r.cases.push_back(CaseResult{});
  EXPECT_FALSE(r.all_pass());
}

class TestSetDir : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("kiln_verify_test_" + std::to_string(::getpid()) + "_" +
                                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    fs::create_directories(dir);
    CompiledTensor x;
    x.name = "x";
    x.dtype = DType::Float32;
    x.shape = {2, 2};
    x.size_bytes = 16;
    module.inputs.push_back(x);
    CompiledTensor y = x;
    y.name = "y";
    y.shape = {4};
    module.outputs.push_back(y);
  }
  void TearDown() override { fs::remove_all(dir); }
  fs::path dir;
  CompiledModule module;
};

TEST_F(TestSetDir, ReadsInputsAndExpectedOutputs) {
  write_tensor_pb(dir / "input_0.pb", "x", *Constant::from_floats({2, 2}, {1, 2, 3, 4}));
  write_tensor_pb(dir / "output_0.pb", "y", *Constant::from_floats({1, 4}, {5, 6, 7, 8}));  // same count, other shape
  TestSet t = read_test_set(dir, module);
  EXPECT_EQ(t.dir, dir);
  ASSERT_EQ(t.inputs.size(), 1u);
  ASSERT_EQ(t.expected.size(), 1u);
  EXPECT_EQ(t.inputs[0]->as_double(3), 4.0);
  EXPECT_EQ(t.expected[0]->as_double(0), 5.0);
}

std::string error_of(const fs::path& dir, const CompiledModule& m) {
  try {
    read_test_set(dir, m);
  } catch (const CompileError& e) {
    std::string s = e.what();
    EXPECT_EQ(s.find('\n'), std::string::npos) << s;
    return s;
  }
  ADD_FAILURE() << "read_test_set did not throw";
  return "";
}

TEST_F(TestSetDir, MissingFileIsNamed) {
  write_tensor_pb(dir / "input_0.pb", "x", *Constant::from_floats({2, 2}, {1, 2, 3, 4}));
  EXPECT_CONTAINS(error_of(dir, module), (dir / "output_0.pb").string());
}

TEST_F(TestSetDir, WrongDtypeOrSizeNamesTheFileAndTheTensor) {
  write_tensor_pb(dir / "input_0.pb", "x", *Constant::from_int64s({2, 2}, {1, 2, 3, 4}));
  write_tensor_pb(dir / "output_0.pb", "y", *Constant::from_floats({4}, {5, 6, 7, 8}));
  std::string m = error_of(dir, module);
  EXPECT_CONTAINS(m, (dir / "input_0.pb").string());
  EXPECT_CONTAINS(m, "int64");
  EXPECT_CONTAINS(m, "'x'");

  write_tensor_pb(dir / "input_0.pb", "x", *Constant::from_floats({2, 2}, {1, 2, 3, 4}));
  write_tensor_pb(dir / "output_0.pb", "y", *Constant::from_floats({5}, {5, 6, 7, 8, 9}));
  m = error_of(dir, module);
  EXPECT_CONTAINS(m, (dir / "output_0.pb").string());
  EXPECT_CONTAINS(m, "[5]");
}

TEST_F(TestSetDir, CorruptFileIsNamed) {
  std::ofstream(dir / "input_0.pb", std::ios::binary) << "\xff\xff\xff\xff";
  write_tensor_pb(dir / "output_0.pb", "y", *Constant::from_floats({4}, {5, 6, 7, 8}));
  EXPECT_CONTAINS(error_of(dir, module), (dir / "input_0.pb").string());
}

TEST_F(TestSetDir, NotAFolderIsAnError) {
  EXPECT_CONTAINS(error_of(dir / "nope", module), (dir / "nope").string());
}

}  // namespace
}  // namespace kiln
