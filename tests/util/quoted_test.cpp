// Model text in messages (util/quoted.h): one readable line whatever the model holds.
#include "util/quoted.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

TEST(Quoted, OrdinaryNamesAreUnchanged) {
  EXPECT_EQ(in_quotes("conv1/out:0"), "'conv1/out:0'");
  EXPECT_EQ(in_quotes("caf\xc3\xa9 \xe4\xb8\xad"), "'caf\xc3\xa9 \xe4\xb8\xad'");  // printable UTF-8 stays
  EXPECT_EQ(escaped("Conv"), "Conv");
}

TEST(Quoted, ControlCharactersAreEscaped) {
  EXPECT_EQ(in_quotes("a\nb"), "'a\\nb'");
  EXPECT_EQ(in_quotes("bell\x07"), "'bell\\x07'");
  EXPECT_EQ(in_quotes(std::string("nul\0x", 5)), "'nul\\x00x'");
  EXPECT_EQ(in_quotes("it's \\"), "'it\\'s \\\\'");
  EXPECT_EQ(in_quotes("\x7f\r\t"), "'\\x7f\\r\\t'");
}

TEST(Quoted, InvisibleAndReorderingCodePointsAreEscaped) {
  EXPECT_EQ(in_quotes("abc\xe2\x80\xae" "def"), "'abc\\u202edef'");  // RIGHT-TO-LEFT OVERRIDE
  EXPECT_EQ(in_quotes("\xe2\x80\x8b"), "'\\u200b'");                 // ZERO WIDTH SPACE
  EXPECT_EQ(in_quotes("\xef\xbb\xbf"), "'\\ufeff'");                 // BOM
  EXPECT_EQ(in_quotes("\xc2\x85"), "'\\u0085'");                     // C1 NEXT LINE
  EXPECT_EQ(in_quotes("\xff\xc3"), "'\\xff\\xc3'");                  // not UTF-8
  EXPECT_EQ(in_quotes("\xc0\x80"), "'\\xc0\\x80'");                  // overlong NUL
}

TEST(Quoted, LongTextIsCutWithItsLength) {
  const std::string s = in_quotes(std::string(10240, 'a'));
  EXPECT_EQ(s, "'" + std::string(kMaxQuotedBytes, 'a') + "...' (10240 bytes)");
  EXPECT_LT(s.size(), 200u);
  EXPECT_EQ(escaped(std::string(20, '\n'), 8), "\\n\\n\\n\\n... (20 bytes)");
  EXPECT_EQ(in_quotes("x..."), "'x...'");  // not cut: no length
}

}  // namespace
}  // namespace kiln
