// EXPECT_CONTAINS(haystack, needle): a substring check with a readable failure,
// shared by the test files that assert on error messages and generated text.
#pragma once

#include <gtest/gtest.h>

#include <string>

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "'" << (haystack) << "' lacks '" << (needle) << "'"
