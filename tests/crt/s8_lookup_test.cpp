// kiln_lookup_s8 (KilnQLookup): y = table[x + 128], every length remainder, in place.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "kiln_kernels.h"
#include "s8_test_util.h"

namespace {

TEST(S8Lookup, EveryValueAndLength) {
  std::mt19937 rng(41);
  const std::vector<int8_t> table = kiln::s8test::random_int8(rng, 256);
  for (uint32_t n : {0u, 1u, 3u, 4u, 5u, 256u, 1031u}) {
    std::vector<int8_t> x = kiln::s8test::random_int8(rng, n + 1);  // one past the end stays untouched
    if (n == 256u)
      for (int v = 0; v < 256; ++v) x[v] = static_cast<int8_t>(v - 128);
    const kiln_lookup_s8_params_t p = {n};
    std::vector<int8_t> y(n + 1, 0);
    y[n] = 55;
    ASSERT_EQ(kiln_lookup_s8(&p, x.data(), table.data(), y.data()), KILN_OK);
    for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(y[i], table[x[i] + 128]) << i;
    EXPECT_EQ(y[n], 55);
    y[n] = x[n];
    ASSERT_EQ(kiln_lookup_s8(&p, x.data(), table.data(), x.data()), KILN_OK);  // in place
    EXPECT_EQ(x, y);
  }
}

TEST(S8Lookup, RejectsNull) {
  const kiln_lookup_s8_params_t p = {4};
  std::vector<int8_t> x(4), t(256);
  EXPECT_EQ(kiln_lookup_s8(&p, x.data(), nullptr, x.data()), KILN_ERR_NULL_POINTER);
  EXPECT_EQ(kiln_lookup_s8(nullptr, x.data(), t.data(), x.data()), KILN_ERR_NULL_POINTER);
}

}  // namespace
