// The helpers hostile models meet first: checked arithmetic (util/checked_math.h)
// and the escaping of names into generated C (emit/c_names.h).
#include <gtest/gtest.h>

#include <climits>

#include "emit/c_names.h"
#include "util/checked_math.h"
#include "util/error.h"

namespace kiln {
namespace {

TEST(CheckedMath, OverflowIsACompileErrorNamingTheValue) {
  EXPECT_EQ(checked_mul(1 << 20, 1 << 20, "x"), int64_t(1) << 40);
  try {
    checked_mul(INT64_MAX, 2, "Expand 'e' target");
    FAIL() << "no error";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("Expand 'e' target"), std::string::npos) << e.what();
  }
  EXPECT_THROW(checked_add(INT64_MAX, 1, "x"), CompileError);
  EXPECT_THROW(checked_sub(INT64_MIN, 1, "x"), CompileError);
  EXPECT_THROW(checked_mul_u(UINT64_MAX, 2, "x"), CompileError);
}

TEST(CheckedMath, ElementsAreBoundedAndNeverWrap) {
  EXPECT_EQ(checked_elements({}, "scalar"), 1);
  EXPECT_EQ(checked_elements({2, 3, 4}, "t"), 24);
  EXPECT_EQ(checked_elements({0, 7}, "empty"), 0);
  EXPECT_EQ(checked_elements({kMaxTensorElements, 0}, "empty"), 0);
  // An empty shape's other dimensions still multiply within the limit, so that no
  // stride computed from them overflows (found by make fuzz: an initializer
  // [5,123,...,123529179,...,0,...] overflowed dense_strides).
  EXPECT_THROW(checked_elements({0, INT64_MAX}, "empty"), CompileError);
  EXPECT_THROW(checked_elements({kMaxTensorElements, 0, 2}, "empty"), CompileError);
  EXPECT_EQ(checked_elements({kMaxTensorElements}, "t"), kMaxTensorElements);
  EXPECT_THROW(checked_elements({kMaxTensorElements, 2}, "t"), CompileError);
  EXPECT_THROW(checked_elements({int64_t(1) << 32, int64_t(1) << 32}, "t"), CompileError);  // wraps to 0 unchecked
  EXPECT_THROW(checked_elements({2, -3}, "t"), CompileError);
  EXPECT_THROW(checked_elements(std::vector<int64_t>(size_t(kMaxRank) + 1, 1), "t"), CompileError);
  EXPECT_EQ(checked_tensor_bytes({256, 256}, 4, "t"), 262144);
  EXPECT_THROW(checked_tensor_bytes({kMaxTensorElements}, 8, "t"), CompileError);
}

TEST(CNames, TextIsSafeInStringsAndComments) {
  EXPECT_EQ(c_text("conv1/out:0"), "conv1/out:0");
  EXPECT_EQ(c_text("a\"b"), "a\\042b");
  EXPECT_EQ(c_text("a\\b"), "a\\134b");
  EXPECT_EQ(c_text("x*/y"), "x\\052\\057y");
  EXPECT_EQ(c_text("x/*y"), "x\\057\\052y");
  EXPECT_EQ(c_text("?" "?/"), "\\077\\077/");  // a trigraph, spelled so this file has none
  EXPECT_EQ(c_text("a\nb"), "a\\012b");
  EXPECT_EQ(c_text("\xc3\xa9" "1"), "\\303\\2511");  // three digits: the '1' stays a character
  const std::string all = c_text(std::string("\0\x01\x7f\xff", 4));
  for (char c : all) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << int(c);
}

TEST(CNames, IdentifiersAvoidKeywordsAndCollisions) {
  CNameTable t;
  EXPECT_EQ(t.unique("int"), "int_");
  EXPECT_EQ(t.unique("a b"), "a_b");
  EXPECT_EQ(t.unique("a/b"), "a_b_1");
  EXPECT_EQ(t.unique("1x"), "t_1x");
  EXPECT_EQ(c_identifier("\xe4\xb8\xad"), "___");
}

}  // namespace
}  // namespace kiln
