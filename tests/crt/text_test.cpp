// Unit tests of the TfIdfVectorizer kernel: n-gram counting with skips, and the
// IDF / TFIDF weightings, against counts worked out by hand.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

extern "C" {
#include "kiln_kernels.h"
}

namespace {

// Pool: unigrams {7}, {9}; bigrams {7,9}, {9,7}. Ids 0..3 map to columns 3, 0, 1, 2.
kiln_tfidf_params_t pool_params(const int64_t* pool, const uint32_t* out_index, const float* weights) {
  kiln_tfidf_params_t p = {};
  p.rows = 2;
  p.cols = 5;
  p.out_size = 4;
  p.min_gram = 1;
  p.max_gram = 2;
  p.max_skip = 1;
  p.gram_count[0] = 2;
  p.gram_count[1] = 2;
  p.gram_offset[0] = 0;
  p.gram_offset[1] = 2;
  p.gram_id[0] = 0;
  p.gram_id[1] = 2;
  p.pool = pool;
  p.out_index = out_index;
  p.weights = weights;
  return p;
}

TEST(TfIdf, CountsUnigramsOnceAndBigramsPerSkip) {
  const int64_t pool[] = {7, 9, 7, 9, 9, 7};
  const uint32_t out_index[] = {3, 0, 1, 2};
  kiln_tfidf_params_t p = pool_params(pool, out_index, nullptr);
  // Row 0: 7 9 7 1 9. Unigrams: 7 x2, 9 x2. Bigrams skip 0: (7,9) (9,7) (7,1) (1,9)
  // -> {7,9} 1, {9,7} 1; skip 1: (7,7) (9,1) (7,9) -> {7,9} 1. So {7,9} 2, {9,7} 1.
  // Row 1: 1 1 1 1 1: nothing.
  const int32_t in[] = {7, 9, 7, 1, 9, 1, 1, 1, 1, 1};
  std::vector<float> out(8, -1.f);
  ASSERT_EQ(kiln_tfidf_vectorizer_i32(&p, in, out.data()), KILN_OK);
  EXPECT_EQ(out, (std::vector<float>{2, 2, 1, 2, 0, 0, 0, 0}));
  // Only bigrams, no skips: {7,9} 1, {9,7} 1.
  p.min_gram = 2;
  p.max_skip = 0;
  ASSERT_EQ(kiln_tfidf_vectorizer_i32(&p, in, out.data()), KILN_OK);
  EXPECT_EQ(out, (std::vector<float>{0, 1, 1, 0, 0, 0, 0, 0}));
}

TEST(TfIdf, IdfKeepsPresenceAndTfidfScalesTheCount) {
  const int64_t pool[] = {7, 9, 7, 9, 9, 7};
  const uint32_t out_index[] = {3, 0, 1, 2};
  const float w[] = {0.5f, 2.f, 3.f, 4.f};  // by id: {7} {9} {7,9} {9,7}
  kiln_tfidf_params_t p = pool_params(pool, out_index, w);
  const int64_t in[] = {7, 9, 7, 1, 9, 1, 1, 1, 1, 9};
  std::vector<float> out(8);
  p.mode = KILN_TFIDF_IDF;
  ASSERT_EQ(kiln_tfidf_vectorizer_i64(&p, in, out.data()), KILN_OK);
  EXPECT_EQ(out, (std::vector<float>{2.f, 3.f, 4.f, 0.5f, 2.f, 0, 0, 0}));
  p.mode = KILN_TFIDF_TFIDF;
  ASSERT_EQ(kiln_tfidf_vectorizer_i64(&p, in, out.data()), KILN_OK);
  EXPECT_EQ(out, (std::vector<float>{4.f, 6.f, 4.f, 1.f, 2.f, 0, 0, 0}));
  p.max_gram = KILN_TFIDF_MAX_GRAM + 1;
  EXPECT_EQ(kiln_tfidf_vectorizer_i64(&p, in, out.data()), KILN_ERR_BAD_ARGUMENT);
}

}  // namespace
